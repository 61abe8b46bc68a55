// The smallest Swift program: the startup floor of any Swift executable built like bundleidx.
print("hello")
