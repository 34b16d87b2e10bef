//! The `opledger` binary: parses the command line and runs the chosen subcommand.

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let (cli, matches) = opledger::server::app::cli::parse();
    let telemetry = opledger::server::telemetry::init(cli.log_format);
    let ran = opledger::server::app::cli::run(cli, &matches).await;
    telemetry.shutdown();
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
