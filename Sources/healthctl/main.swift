import Foundation

// healthctl: the owner's tool. Exit status: 0 done, 1 the call failed, 2 bad usage.
// Output goes straight to the descriptors (no stdio buffering), so `watch` lines appear at once.
exit(await HealthCtl.run(Array(CommandLine.arguments.dropFirst()),
                         output: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
                         errors: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }))
