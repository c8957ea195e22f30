//! The `agentbox` program: the command line over the workspace's crates (see `ARCHITECTURE.md`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
