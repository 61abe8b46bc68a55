#!/usr/bin/env python3
"""scenarios.py — tiny hand-made bundles that pin down each behaviour listed in ORACLE_NOTES.md.

usage: scenarios.py [--export DIR] [WORKDIR]
  WORKDIR default ${TMPDIR:-/tmp}/bundleidx-oracle/scenarios; builds the oracle into
  $WORK_DIR/oracle (WORK_DIR default ${TMPDIR:-/tmp}/bundleidx-oracle, as in run.sh) when it is
  missing or older than oracle.swift.
Prints, per scenario, each query and Foundation's answer, then checks the answers we claim in
ORACLE_NOTES.md (exit 1 if a claim does not hold any more).
--export DIR: additionally copies every scenario bundle to DIR/<id>/<bundle dir name> (alone in its
  folder; S10's bundle stays absent), asks Foundation again about that copy and writes
  DIR/<id>/expected.json = {"scenario","title","bundle","cases":[{"q","a"}]} (run.sh's shape).
  <id> is the scenario's S-number ("S1", "S1b", ...). S11 (traps) is not exported.
"""
import argparse
import json
import os
import plistlib
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.environ.get("WORK_DIR") or os.path.join(os.environ.get("TMPDIR", "/tmp"), "bundleidx-oracle")
ORACLE = os.path.join(BASE, "oracle")
_ap = argparse.ArgumentParser(usage="scenarios.py [--export DIR] [WORKDIR]")
_ap.add_argument("workdir", nargs="?")
_ap.add_argument("--export", metavar="DIR")
_args = _ap.parse_args()
WORK = os.path.abspath(_args.workdir) if _args.workdir else os.path.join(BASE, "scenarios")
EXPORT = os.path.abspath(_args.export) if _args.export else None
_src = os.path.join(HERE, "oracle.swift")
if not os.path.exists(ORACLE) or os.path.getmtime(_src) > os.path.getmtime(ORACLE):
    os.makedirs(BASE, exist_ok=True)
    subprocess.run([os.environ.get("SWIFTC", "swiftc"), "-O", _src, "-o", ORACLE + ".tmp"], check=True)
    os.replace(ORACLE + ".tmp", ORACLE)


def mk(root, files, links=()):
    if os.path.lexists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    for rel, data in files.items():
        p = os.path.join(root, rel)
        if rel.endswith("/"):
            os.makedirs(p, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode())
    for rel, target in links:
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)


def plist(d):
    return plistlib.dumps(d)


def ask(bundle, queries):
    qf = os.path.join(WORK, "q.json")
    with open(qf, "w") as fh:
        json.dump({"bundle": bundle, "queries": queries}, fh)
    out = subprocess.run([ORACLE, qf], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("oracle failed: " + out.stderr[-2000:])
    got = json.loads(out.stdout)
    # optional cross-check against a reference model, when one sits beside this file
    model = os.path.join(HERE, "model.py")
    if os.path.exists(model):
        m = subprocess.run([sys.executable, model, qf], capture_output=True, text=True)
        pred = json.loads(m.stdout) if m.returncode == 0 else None
        for q, a, p in zip(queries, got, pred or [None] * len(got)):
            if pred is None or a != p:
                failures.append(("model disagrees", q, a, p))
    return got


failures = []


def scenario(title, bundle, cases):
    """cases: list of (query, expected-answer or ANY)"""
    print("\n## " + title)
    print("   bundle: " + os.path.relpath(bundle, WORK))
    ans = ask(bundle, [q for q, _ in cases])
    for (q, want), got in zip(cases, ans):
        ok = (want is ANY) or (got == want)
        mark = "ok " if ok else "!! "
        print("   %s%s\n        -> %s" % (mark, json.dumps(q), json.dumps(got, ensure_ascii=False)))
        if not ok:
            failures.append((title, q, want, got))
    if EXPORT:
        export(title, bundle, [q for q, _ in cases], ans)


exported = []


def export(title, bundle, queries, ans):
    """--export: bundle copy alone in EXPORT/<id>/ + expected.json with Foundation's answers for it."""
    sid = title.split()[0]
    dst = os.path.join(EXPORT, sid)
    if os.path.lexists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    bname = os.path.basename(bundle)
    if os.path.lexists(bundle):          # S10: the bundle is missing on purpose, keep it missing
        shutil.copytree(bundle, os.path.join(dst, bname), symlinks=True)
    got = ask(os.path.join(dst, bname), queries)
    if got != ans:                       # canonical answers must not depend on where the copy is
        failures.append(("export differs", sid, ans, got))
    exp = {"scenario": sid, "title": title, "bundle": bname,
           "cases": [{"q": q, "a": a} for q, a in zip(queries, got)]}
    with open(os.path.join(dst, "expected.json"), "w") as fh:
        json.dump(exp, fh, indent=1, ensure_ascii=False, sort_keys=True)
    exported.append(sid)


ANY = object()


def main():
    os.makedirs(WORK, exist_ok=True)
    W = lambda *p: os.path.join(WORK, *p)

    # 1. the reported case: CFBundleDevelopmentRegion=fr, only en.lproj
    b = W("s1", "Mac.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s1", "CFBundleDevelopmentRegion": "fr"}),
           "Contents/MacOS/Mac": "x", "Contents/Resources/en.lproj/b.txt": "en",
           "Contents/Resources/g.txt": "g"})
    scenario("S1 dev region fr, only en.lproj: localized resource not found", b, [
        ({"op": "path", "name": "b", "type": "txt", "dir": None}, None),
        ({"op": "path", "name": "b", "type": "txt", "dir": None, "loc": "en"},
         "Contents/Resources/en.lproj/b.txt"),
        ({"op": "paths", "type": "txt", "dir": None}, ["Contents/Resources/g.txt"]),
        ({"op": "localizations"}, ["en"]),
        ({"op": "preferred"}, ["en"]),
        ({"op": "dev"}, "fr"),
    ])

    # 1b. same but no dev region at all -> search list falls back to "en"
    b = W("s1b", "Mac.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s1b"}),
           "Contents/Resources/en.lproj/b.txt": "en", "Contents/Resources/fr.lproj/b.txt": "fr",
           "Contents/Resources/fr.lproj/c.txt": "fr"})
    scenario("S1b no CFBundleDevelopmentRegion: search list = [en] (if en/English/en_US present)", b, [
        ({"op": "path", "name": "b", "type": "txt", "dir": None}, "Contents/Resources/en.lproj/b.txt"),
        ({"op": "path", "name": "c", "type": "txt", "dir": None}, None),
        ({"op": "dev"}, None),   # Foundation itself traps here, see S11
    ])

    # 2. device modifiers and platform suffixes on Linux
    b = W("s2", "Phone.app")
    mk(b, {"Info.plist": plist({"CFBundleIdentifier": "s2", "CFBundleDevelopmentRegion": "en"}),
           "Phone": "x", "icon.png": "", "icon~ipad.png": "", "icon~iphone.png": "",
           "only~ipad.png": "", "logo.png": "", "logo-linux.png": "", "logo-iphoneos.png": "",
           "badge-iphoneos.png": "", "bg@2x~ipad.png": ""})
    scenario("S2 ~ipad/~iphone ignored, -linux honoured, -iphoneos ignored on Linux", b, [
        ({"op": "path", "name": "icon", "type": "png", "dir": None}, "icon.png"),
        ({"op": "path", "name": "only", "type": "png", "dir": None}, None),
        ({"op": "path", "name": "icon~ipad", "type": "png", "dir": None}, "icon~ipad.png"),
        ({"op": "path", "name": "logo", "type": "png", "dir": None}, "logo-linux.png"),
        ({"op": "path", "name": "badge", "type": "png", "dir": None}, None),
        ({"op": "path", "name": "bg@2x", "type": "png", "dir": None}, None),
        ({"op": "paths", "type": "png", "dir": None}, ANY),
    ])

    # 3. preferredLocalizations ignore the preference list
    b = W("s2", "Phone.app")
    scenario("S3 preferredLocalizations(from:forPreferences:) = [from[0]] on Linux", b, [
        ({"op": "preferredFrom", "prefs": ["de"], "from": ["en", "fr", "de"]}, ["en"]),
        ({"op": "preferredFrom", "prefs": ["fr-CA", "en"], "from": ["fr", "en"]}, ["fr"]),
        ({"op": "preferredFrom", "prefs": ["zh-Hant-HK"], "from": ["zh_CN", "zh_TW", "zh_HK"]}, ["zh_CN"]),
        ({"op": "preferredFrom", "prefs": ["de"], "from": []}, ["en"]),
        ({"op": "preferredFrom", "prefs": None, "from": ["ja", "en"]}, ["ja"]),
    ])

    # 4. explicit localization: no alias, no fallback, nil = global only
    b = W("s4", "Loc.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s4", "CFBundleDevelopmentRegion": "English"}),
           "Contents/Resources/English.lproj/a.txt": "E", "Contents/Resources/Base.lproj/base.txt": "B",
           "Contents/Resources/en_GB.lproj/a.txt": "GB", "Contents/Resources/g.txt": "g",
           "Contents/Resources/English.lproj/g.txt": "E-g"})
    scenario("S4 forLocalization: exact lproj name only; global wins; nil -> global only", b, [
        ({"op": "path", "name": "a", "type": "txt", "dir": None}, "Contents/Resources/English.lproj/a.txt"),
        ({"op": "path", "name": "a", "type": "txt", "dir": None, "loc": "English"}, "Contents/Resources/English.lproj/a.txt"),
        ({"op": "path", "name": "a", "type": "txt", "dir": None, "loc": "en"}, None),
        ({"op": "path", "name": "a", "type": "txt", "dir": None, "loc": "en-GB"}, None),
        ({"op": "path", "name": "a", "type": "txt", "dir": None, "loc": "en_GB"}, "Contents/Resources/en_GB.lproj/a.txt"),
        ({"op": "path", "name": "base", "type": "txt", "dir": None, "loc": "English"}, None),
        ({"op": "path", "name": "base", "type": "txt", "dir": None}, "Contents/Resources/Base.lproj/base.txt"),
        ({"op": "path", "name": "a", "type": "txt", "dir": None, "loc": None}, None),
        ({"op": "path", "name": "g", "type": "txt", "dir": None, "loc": "English"}, "Contents/Resources/g.txt"),
        ({"op": "paths", "type": "txt", "dir": None, "loc": "en_GB"},
         ["Contents/Resources/g.txt", "Contents/Resources/en_GB.lproj/a.txt"]),
        ({"op": "paths", "type": "txt", "dir": None, "loc": None}, ["Contents/Resources/g.txt"]),
        ({"op": "localizations"}, ["Base", "English", "en_GB"]),
    ])

    # 5. Base.lproj and the dev region in localizations
    b = W("s5", "Base.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s5", "CFBundleDevelopmentRegion": "de"}),
           "Contents/Resources/Base.lproj/Main.nib": "", "Contents/Resources/fr.lproj/Main.nib": "",
           "Contents/Resources/de.lproj/x.txt": "", "Contents/Resources/fr.lproj/only_fr.txt": ""})
    scenario("S5 search order global > dev(lang0) > Base; other lprojs never searched", b, [
        ({"op": "path", "name": "Main", "type": "nib", "dir": None}, "Contents/Resources/Base.lproj/Main.nib"),
        ({"op": "path", "name": "only_fr", "type": "txt", "dir": None}, None),
        ({"op": "path", "name": "Main", "type": "nib", "dir": None, "loc": "fr"}, "Contents/Resources/fr.lproj/Main.nib"),
        ({"op": "localizations"}, ["Base", "de", "fr"]),
    ])
    b = W("s5b", "Base.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s5b", "CFBundleDevelopmentRegion": "it",
                                         "CFBundleLocalizations": ["en", "", 5, "ja"]}),
           "Contents/Resources/Base.lproj/Main.nib": "", "Contents/Resources/en.lproj/x.txt": ""})
    scenario("S5b CFBundleLocalizations first (no de-dup), lproj dirs, then dev region appended because Base exists", b, [
        ({"op": "localizations"}, ["en", "ja", "Base", "en", "it"]),
        ({"op": "preferred"}, ["en"]),
    ])

    # 6. Info.plist discovery
    b = W("s6", "Lower.app")
    mk(b, {"Contents/info.plist": plist({"CFBundleIdentifier": "s6", "CFBundleDevelopmentRegion": "en"}),
           "Contents/Resources/en.lproj/a.txt": ""})
    scenario("S6 'info.plist' (lower case) is matched case-insensitively but opened as 'Info.plist' -> empty dict on Linux", b, [
        ({"op": "identifier"}, None),
        ({"op": "infoKeys"}, []),
        ({"op": "path", "name": "a", "type": "txt", "dir": None}, "Contents/Resources/en.lproj/a.txt"),
    ])
    b = W("s6b", "Ref.app")
    mk(b, {"Info.plist": plist({"CFBundleIdentifier": "s6b", "CFBundleDevelopmentRegion": "en"}),
           "Ref": "x", "root.txt": "", "Resources/inres.txt": "", "Resources/root.txt": "R",
           "en.lproj/l.txt": ""})
    scenario("S6b flat app with a top-level 'Resources' folder becomes an old-style bundle", b, [
        ({"op": "resourcePath"}, "Resources"),
        ({"op": "identifier"}, None),
        ({"op": "path", "name": "inres", "type": "txt", "dir": None}, "Resources/inres.txt"),
        ({"op": "path", "name": "root", "type": "txt", "dir": None}, "Resources/root.txt"),
        ({"op": "path", "name": "Ref", "type": None, "dir": None}, "Ref"),
        ({"op": "path", "name": "l", "type": "txt", "dir": None}, "en.lproj/l.txt"),
        ({"op": "localizations"}, []),
    ])
    b = W("s6c", "Old.bundle")
    mk(b, {"Resources/Info.plist": plist({"CFBundleIdentifier": "s6c", "CFBundleDevelopmentRegion": "en",
                                          "K-linux": "L", "K": "plain", "K~ipad": "I", "K-macos": "M"}),
           "Resources/a.txt": "", "top.txt": "", "Images/t.png": "", "Resources/Images/r.png": ""})
    scenario("S6c Resources/ bundle: misses fall back to the bundle root; platform keys stay literal", b, [
        ({"op": "resourcePath"}, "Resources"),
        ({"op": "path", "name": "top", "type": "txt", "dir": None}, "top.txt"),
        ({"op": "path", "name": "t", "type": "png", "dir": "Images"}, "Images/t.png"),
        ({"op": "path", "name": "r", "type": "png", "dir": "Resources/Images"}, "Resources/Images/r.png"),
        ({"op": "paths", "type": "png", "dir": "Images"}, ["Resources/Images/r.png"]),
        ({"op": "info", "key": "K"}, {"hasLocalizedDict": False, "info": "plain", "localized": None, "object": "plain"}),
        ({"op": "infoKeys"}, ["CFBundleDevelopmentRegion", "CFBundleIdentifier", "K", "K-linux", "K-macos", "K~ipad"]),
    ])

    # 7. versioned framework
    b = W("s7", "Kit.framework")
    mk(b, {"Versions/A/Resources/Info.plist": plist({"CFBundleIdentifier": "s7", "CFBundleDevelopmentRegion": "en"}),
           "Versions/A/Kit": "bin", "Versions/A/Resources/en.lproj/k.strings": "",
           "Versions/A/Resources/img.png": ""},
       links=[("Versions/Current", "A"), ("Resources", "Versions/Current/Resources"),
              ("Kit", "Versions/Current/Kit")])
    scenario("S7 macOS framework: resourcePath is the top-level Resources symlink (not resolved)", b, [
        ({"op": "resourcePath"}, "Resources"),
        ({"op": "identifier"}, "s7"),
        ({"op": "path", "name": "img", "type": "png", "dir": None}, "Resources/img.png"),
        ({"op": "path", "name": "Kit", "type": None, "dir": None}, "Kit"),
        ({"op": "localizations"}, ["en"]),
    ])

    # 8. InfoPlist.strings and object(forInfoDictionaryKey:)
    b = W("s8", "Strs.app")
    mk(b, {"Contents/Info.plist": plist({"CFBundleIdentifier": "s8", "CFBundleDevelopmentRegion": "en",
                                         "CFBundleName": "Strs"}),
           "Contents/Resources/en.lproj/InfoPlist.strings": '"CFBundleName" = "Localized";\n'})
    scenario("S8 object(forInfoDictionaryKey:) does not fall back to Info.plist when InfoPlist.strings exists", b, [
        ({"op": "info", "key": "CFBundleName"},
         {"hasLocalizedDict": True, "info": "Strs", "localized": "Localized", "object": "Localized"}),
        ({"op": "info", "key": "CFBundleIdentifier"},
         {"hasLocalizedDict": True, "info": "s8", "localized": None, "object": None}),
    ])

    # 9. names, types, subdirectories
    b = W("s9", "Names.app")
    mk(b, {"Info.plist": plist({"CFBundleIdentifier": "s9", "CFBundleDevelopmentRegion": "en"}),
           "Names": "x", "a.tar.gz": "", "Img.png": "", "img.png": "", "LICENSE": "", ".hidden": "",
           "._junk": "", "weird.": "", "Images/i.png": "", "en.lproj/Images/j.png": "",
           "Main.storyboardc/Info.plist": "", "notes.lproj.txt": "", "en.lproj/n.txt": ""},
       links=[("Linked", "Images")])
    scenario("S9 name/type/dir handling", b, [
        ({"op": "path", "name": "a", "type": "tar.gz", "dir": None}, "a.tar.gz"),
        ({"op": "path", "name": "a.tar", "type": "gz", "dir": None}, "a.tar.gz"),
        ({"op": "path", "name": "a", "type": ".tar.gz", "dir": None}, "a.tar.gz"),
        ({"op": "path", "name": "a.tar.gz", "type": None, "dir": None}, "a.tar.gz"),
        ({"op": "paths", "type": "gz", "dir": None}, ["a.tar.gz"]),
        ({"op": "paths", "type": "tar.gz", "dir": None}, ["a.tar.gz"]),
        ({"op": "path", "name": "IMG", "type": "png", "dir": None}, None),
        ({"op": "path", "name": "Img", "type": "png", "dir": None}, "Img.png"),
        ({"op": "path", "name": "LICENSE", "type": None, "dir": None}, "LICENSE"),
        ({"op": "path", "name": ".hidden", "type": None, "dir": None}, ".hidden"),
        ({"op": "paths", "type": "hidden", "dir": None}, [".hidden"]),
        ({"op": "path", "name": "._junk", "type": None, "dir": None}, None),
        ({"op": "path", "name": "weird.", "type": None, "dir": None}, "weird."),
        ({"op": "path", "name": "Images", "type": None, "dir": None}, "Images"),
        ({"op": "url", "name": "Images", "type": None, "dir": None}, {"path": "Images", "isDir": True}),
        ({"op": "url", "name": "Linked", "type": None, "dir": None}, {"path": "Linked", "isDir": False}),
        ({"op": "path", "name": "i", "type": "png", "dir": "Linked"}, "Linked/i.png"),
        ({"op": "path", "name": "Images/i", "type": "png", "dir": None}, "Images/i.png"),
        ({"op": "path", "name": "j", "type": "png", "dir": "Images"}, "en.lproj/Images/j.png"),
        ({"op": "path", "name": "Info", "type": "plist", "dir": None}, "Info.plist"),
        ({"op": "path", "name": "Info", "type": "plist", "dir": "Main.storyboardc"}, "Main.storyboardc/Info.plist"),
        ({"op": "path", "name": "Main", "type": "storyboardc", "dir": None}, "Main.storyboardc"),
        ({"op": "path", "name": "i", "type": "png", "dir": "/Images"}, "/Images/i.png"),
        ({"op": "path", "name": "i", "type": "png", "dir": "./Images"}, "./Images/i.png"),
        ({"op": "paths", "type": "png", "dir": "./Images"}, ["Images/i.png", "en.lproj/Images/j.png"]),
        ({"op": "path", "name": "Img", "type": "png", "dir": "Images/.."}, "Images/../Img.png"),
        ({"op": "path", "name": "Img", "type": "png", "dir": ".."}, None),
        ({"op": "paths", "type": "png", "dir": "../x"}, []),
        ({"op": "path", "name": None, "type": "png", "dir": None}, {"anyOf": ["Img.png", "img.png"]}),
        ({"op": "path", "name": "notes.lproj", "type": "txt", "dir": None}, "notes.lproj.txt"),
        ({"op": "path", "name": "notes.lproj", "type": "txt", "dir": None, "loc": "en"}, None),
        ({"op": "paths", "type": "txt", "dir": None, "loc": "en"}, ["en.lproj/n.txt"]),
        ({"op": "paths", "type": None, "dir": None}, ANY),
        ({"op": "paths", "type": "lproj", "dir": None}, ["en.lproj"]),
    ])

    # 10. Bundle(path:) edge cases
    nb = W("s10", "NoSuch.app")
    if os.path.lexists(nb):
        shutil.rmtree(nb)
    scenario("S10 Bundle(path:) of a missing directory -> nil", nb, [
        ({"op": "resourcePath"}, {"error": "Bundle(path:) returned nil"}),
    ])
    b = W("s10b", "Empty.bundle")
    mk(b, {"x.txt": ""})
    scenario("S10b any existing directory is a (flat) bundle; no Info.plist -> empty dict", b, [
        ({"op": "resourcePath"}, "."),
        ({"op": "infoKeys"}, []),
        ({"op": "localizations"}, []),
        ({"op": "preferred"}, ["en"]),
        ({"op": "path", "name": "x", "type": "txt", "dir": None}, "x.txt"),
    ])

    # 12. Unicode normalisation: bytes must match exactly on Linux
    b = W("s12", "Uni.app")
    nfd = "r\u0065\u0301sum\u0065\u0301"          # NFD spelling on disk
    nfc = "r\u00e9sum\u00e9"
    mk(b, {"Info.plist": plist({"CFBundleIdentifier": "s12"}), nfd + ".txt": "", "caf\u00e9.txt": ""})
    scenario("S12 no Unicode normalisation on Linux (Darwin CF decomposes the query name to NFD)", b, [
        ({"op": "path", "name": nfd, "type": "txt", "dir": None}, nfd + ".txt"),
        ({"op": "path", "name": nfc, "type": "txt", "dir": None}, None),
        ({"op": "path", "name": "caf\u00e9", "type": "txt", "dir": None}, "caf\u00e9.txt"),
        ({"op": "path", "name": "cafe\u0301", "type": "txt", "dir": None}, None),
    ])

    # 11. Foundation APIs that trap (each call runs in its own process)
    traps_src = os.path.join(HERE, "traps.swift")
    exe = W("traps")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(traps_src):
        subprocess.run(["swiftc", "-O", traps_src, "-o", exe], check=True, capture_output=True)
    print("\n## S11 Foundation calls that trap or are broken (own process each)")
    for case, path, want_trap in [
            ("developmentLocalization", W("s1b", "Mac.app"), True),     # no CFBundleDevelopmentRegion
            ("developmentLocalization", W("s1", "Mac.app"), False),
            ("classPathForResource", W("s9", "Names.app"), True),       # class method, even for a hit
            ("classURLForResourceHit", W("s9", "Names.app"), False),
            ("classURLForResourceMiss", W("s9", "Names.app"), True),
            ("classPathsForResources", W("s9", "Names.app"), False),
            ("staleCache", W("s10b", "Empty.bundle"), False)]:
        r = subprocess.run([exe, case, path], capture_output=True, text=True)
        trapped = r.returncode != 0
        print("   %s %-24s %-28s -> %s %s" % ("ok " if trapped == want_trap else "!! ", case,
              os.path.relpath(path, WORK), "TRAP (status %d)" % r.returncode if trapped else "returns",
              r.stdout.strip()))
        if trapped != want_trap:
            failures.append(("S11", case, want_trap, r.returncode))
        if case == "staleCache" and "after=nil" not in r.stdout:
            failures.append(("S11", case, "after=nil", r.stdout))

    if EXPORT:
        print("\nexported %d scenario(s) to %s: %s" % (len(exported), EXPORT, " ".join(exported)))
    print("\n%d claim(s) failed" % len(failures))
    for f in failures:
        print("FAILED:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
