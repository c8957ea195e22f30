fn main() -> std::process::ExitCode {
    agentbox::cli::main()
}
