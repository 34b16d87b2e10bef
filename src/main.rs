//! The `opledger` binary: parses the command line and runs the chosen subcommand.

use clap::Parser;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = opledger::server::app::cli::Cli::parse();
    opledger::server::telemetry::init(cli.log_format);
    match opledger::server::app::cli::run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
