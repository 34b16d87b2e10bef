//! `opledger openapi`: prints the ledger API's OpenAPI document, the one `GET /api/v1/openapi.json`
//! serves, without a server or a database. The clients in `clients/` are generated from it.

use crate::server::http::ledger_api::openapi_document;

/// Prints the document as pretty JSON with a final newline, so that a checked-in copy diffs cleanly.
pub(super) fn run() -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(&openapi_document())?);
    Ok(())
}
