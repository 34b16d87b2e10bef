//! The admin page's retention: how long the tenant keeps closed operations hot and where its
//! archive is, the last or running sweep with its progress, the archive files with their
//! manifests, setting or ending the retention, and a sweep started now.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// One archive file, as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveFileView {
    pub object_path: String,
    pub operations: u64,
    /// For a segment of the audit chain, the first and last record it holds.
    pub audit_span: Option<(u64, u64)>,
    pub sealed: bool,
    pub closed_from: Option<DateTime<Utc>>,
    pub closed_to: Option<DateTime<Utc>>,
    /// The file's SHA-256 as its manifest states it.
    pub sha256: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Why the last read found the file not as it was signed, until one finds it as signed again.
    pub distrust: Option<crate::domain::archive::ArchiveDistrust>,
}

/// The tenant's last or running sweep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepView {
    pub running: bool,
    pub archived: u64,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// The retention section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionView {
    pub days: Option<u32>,
    pub archive_url: Option<String>,
    pub updated_by: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
    pub sweep: Option<SweepView>,
    pub files: Vec<ArchiveFileView>,
    /// Whether the server can sign manifests (it derives the key from `OPLEDGER_SECRET_KEY`).
    pub signs: bool,
    /// The public key manifests are signed with, for auditors to pin.
    pub public_key: Option<String>,
}

#[server(prefix = "/rpc", endpoint = "retention")]
pub async fn retention() -> Result<RetentionView, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::retention(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the retention: `days` after they closed, to `archive_url`.
#[server(prefix = "/rpc", endpoint = "set_retention")]
pub async fn set_retention(csrf: String, days: String, archive_url: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_retention(&admin, &days, &archive_url).await.inspect_err(crate::console::guard::set_error_status)
}

/// Ends the retention once `confirmed` is `yes` (the form's dialog sets it).
#[server(prefix = "/rpc", endpoint = "remove_retention")]
pub async fn remove_retention(
    csrf: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    if confirmed.trim() != "yes" {
        let refused = AppError::Invalid(crate::t!(
            crate::console::language::current_language(),
            "admin-retention-remove-unconfirmed"
        ));
        crate::console::guard::set_error_status(&refused);
        return Err(refused);
    }
    ssr::remove_retention(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Starts a sweep now; its progress shows on the page.
#[server(prefix = "/rpc", endpoint = "sweep_now")]
pub async fn sweep_now(csrf: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::sweep_now(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::server::http::state::AppState;
    use crate::server::ledger::retention::{RetentionError, DEFAULT_BATCH};
    use crate::t;

    fn ledger() -> crate::server::ledger::Ledger {
        expect_context::<AppState>().ledger.clone()
    }

    /// A retention refusal as the browser sees it: bad input names its field; the rest is logged.
    fn refused(error: RetentionError) -> AppError {
        let language = current_language();
        match error {
            RetentionError::Invalid { field: "days", .. } => {
                AppError::Invalid(t!(language, "admin-retention-bad-days"))
            }
            RetentionError::Invalid { problem, .. } => {
                AppError::Invalid(t!(language, "admin-retention-bad-archive", problem = problem))
            }
            RetentionError::NoPolicy => AppError::Invalid(t!(language, "admin-retention-none-set")),
            RetentionError::NoSigningKey => AppError::Invalid(t!(language, "admin-retention-need-key")),
            RetentionError::Busy(_) => AppError::Invalid(t!(language, "admin-retention-busy")),
            RetentionError::Archive(error) => {
                tracing::warn!(%error, "the archive could not be reached");
                AppError::Invalid(t!(language, "admin-retention-unreachable", problem = error.to_string()))
            }
            RetentionError::Untrusted(refused) => {
                tracing::warn!(%refused, "an archive file is not as it was signed");
                AppError::Unavailable
            }
            RetentionError::Store(error) => unavailable(error),
        }
    }

    pub async fn retention(admin: &SignedIn) -> Result<RetentionView, AppError> {
        let ledger = ledger();
        let policy = ledger.retention(&admin.tenant).await.map_err(unavailable)?;
        let (status, files) = ledger.retention_status(&admin.tenant).await.map_err(unavailable)?;
        Ok(RetentionView {
            days: policy.as_ref().map(|policy| policy.days),
            archive_url: policy.as_ref().map(|policy| policy.archive_url.clone()),
            updated_by: policy.as_ref().map(|policy| policy.updated_by.clone()),
            updated_at: policy.as_ref().map(|policy| policy.updated_at),
            sweep: status.map(|status| SweepView {
                running: status.holder.is_some(),
                archived: status.archived,
                started_at: status.started_at,
                finished_at: status.finished_at,
                last_error: status.last_error,
            }),
            files: files
                .into_iter()
                .rev()
                .map(|file| ArchiveFileView {
                    object_path: file.object_path,
                    operations: file.operations,
                    audit_span: file.audit_span,
                    sealed: file.sealed,
                    closed_from: file.manifest.as_ref().map(|signed| signed.manifest.closed_from),
                    closed_to: file.manifest.as_ref().map(|signed| signed.manifest.closed_to),
                    sha256: file.manifest.map(|signed| signed.manifest.sha256),
                    created_at: file.created_at,
                    distrust: file.distrust,
                })
                .collect(),
            signs: ledger.archive_public_key().is_some(),
            public_key: ledger.archive_public_key(),
        })
    }

    pub async fn set_retention(admin: &SignedIn, days: &str, archive_url: &str) -> Result<String, AppError> {
        let language = current_language();
        let days: i64 =
            days.trim().parse().map_err(|_| AppError::Invalid(t!(language, "admin-retention-bad-days")))?;
        let policy =
            ledger().set_retention(&admin.tenant, &actor(admin), days, archive_url).await.map_err(refused)?;
        Ok(t!(language, "admin-retention-saved", days = policy.days, archive = policy.archive_url))
    }

    pub async fn remove_retention(admin: &SignedIn) -> Result<String, AppError> {
        ledger().remove_retention(&admin.tenant, &actor(admin)).await.map_err(refused)?;
        Ok(t!(current_language(), "admin-retention-removed"))
    }

    pub async fn sweep_now(admin: &SignedIn) -> Result<String, AppError> {
        let ledger = ledger();
        if ledger.retention(&admin.tenant).await.map_err(unavailable)?.is_none() {
            return Err(refused(RetentionError::NoPolicy));
        }
        if ledger.archive_public_key().is_none() {
            return Err(refused(RetentionError::NoSigningKey));
        }
        let tenant = admin.tenant.clone();
        let holder = format!("console-{}", admin.name);
        tokio::spawn(async move {
            let swept =
                ledger.sweep(&tenant, &holder, crate::server::clock::now(), DEFAULT_BATCH, false, |_| {});
            if let Err(error) = swept.await {
                tracing::warn!(%tenant, %error, "a sweep started in the console stopped");
            }
        });
        Ok(t!(current_language(), "admin-retention-sweep-started"))
    }
}
