// parley-fuzz: libFuzzer's `main` (from -sanitize=fuzzer) driving the targets of ParleyFuzzTargets.
// This target is C so that the package manager links the program as it is, without renaming a
// Swift entry point; it holds nothing of its own.
typedef int parley_fuzz_nothing_here;
