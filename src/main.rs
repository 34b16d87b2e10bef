//! The `opledger` binary: parses the command line and runs the chosen subcommand.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = opledger::server::app::cli::Cli::parse();
    let telemetry = opledger::server::telemetry::init(cli.log_format);
    let ran = opledger::server::app::cli::run(cli).await;
    telemetry.shutdown();
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
