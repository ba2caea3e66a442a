import Foundation

// libFuzzer's entry points (https://llvm.org/docs/LibFuzzer.html): its own `main` (linked whole by
// -sanitize=fuzzer) calls LLVMFuzzerInitialize once, then LLVMFuzzerTestOneInput per input.

/// Picks the target named by PARLEY_FUZZ_TARGET (scripts/fuzz.sh sets it).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"], let target = FuzzTargets.all[name] else {
        FileHandle.standardError.write(Data("PARLEY_FUZZ_TARGET must be one of: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    FuzzTargets.selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.selected(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
