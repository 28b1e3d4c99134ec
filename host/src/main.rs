//! The `filestore` command (see [`filestore::cli`]).

fn main() -> std::process::ExitCode {
    filestore::cli::main()
}
