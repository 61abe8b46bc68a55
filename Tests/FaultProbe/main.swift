// FaultProbe INDEX inside|outside — installs the CLI's mapped-read guard, opens INDEX, then
// faults on purpose: `inside` reads a page of the index's map past the end of data.mdb (SIGBUS
// inside the map: the guard must report a damaged index and exit 3), `outside` reads address 8
// (SIGSEGV outside any map: the guard must let the process crash). StoreTests runs both.
@_spi(Engine) @_spi(Testing) import BundleIndex
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 3, ["inside", "outside"].contains(arguments[2]) else {
    print("usage: FaultProbe INDEX inside|outside")
    exit(2)
}
MappedReadGuard.install(message: "FaultProbe: the index is damaged\n", exitCode: 3)
let reader = try IndexReader(path: arguments[1])
_ = try reader.statistics()
var st = stat()
stat(arguments[1] + "/data.mdb", &st)
let address: UInt
if arguments[2] == "inside" {
    let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
    address = MappedReadGuard.mapStarts[0] + (UInt(st.st_size) + page) / page * page + page
} else {
    address = 8
}
let byte = UnsafePointer<UInt8>(bitPattern: address)!.pointee
print("read \(byte) without a fault")
exit(0)
