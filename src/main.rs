//! The `sincro` command (see `sincro --help`): the command line of [`sincro::cli`] over the
//! built-in algorithms.

fn main() -> std::process::ExitCode {
    sincro::cli::main()
}
