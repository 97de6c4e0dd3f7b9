import Foundation
import TandemCLI

let program = TandemCommandLine.standard()
let context = CommandContext(console: StandardConsole(), environment: ProcessInfo.processInfo.environment)
let status = await program.run(Array(CommandLine.arguments.dropFirst()), context: context)
exit(status)
