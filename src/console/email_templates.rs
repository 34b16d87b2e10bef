//! The admin page's customer email templates: the tenant's templates (name, subject, body),
//! saving one and removing one. Agents send them with the `send_customer_email` tool.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// One of the tenant's email templates, as the admin page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateView {
    pub name: String,
    pub subject: String,
    pub body: String,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

#[server(prefix = "/rpc", endpoint = "email_templates")]
pub async fn email_templates() -> Result<Vec<TemplateView>, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::email_templates(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Saves the template `name` (replacing one of the same name).
#[server(prefix = "/rpc", endpoint = "set_email_template")]
pub async fn set_email_template(
    csrf: String,
    name: String,
    subject: String,
    body: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_email_template(&admin, name, subject, body)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "remove_email_template")]
pub async fn remove_email_template(csrf: String, name: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::remove_email_template(&admin, &name).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, reads, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::email::EmailTemplate;
    use crate::server::http::state::AppState;
    use crate::server::store::StoreError;
    use crate::t;

    pub async fn email_templates(admin: &SignedIn) -> Result<Vec<TemplateView>, AppError> {
        let templates = reads().email_templates(&admin.tenant).await.map_err(unavailable)?;
        Ok(templates
            .into_iter()
            .map(|record| TemplateView {
                name: record.template.name,
                subject: record.template.subject,
                body: record.template.body,
                updated_by: record.updated_by,
                updated_at: record.updated_at,
            })
            .collect())
    }

    pub async fn set_email_template(
        admin: &SignedIn,
        name: String,
        subject: String,
        body: String,
    ) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let name = name.trim().to_owned();
        let template = EmailTemplate { name: name.clone(), subject, body: body.replace("\r\n", "\n") };
        ledger
            .set_email_template(&admin.tenant, &actor(admin), template)
            .await
            .map_err(|error| refused(error, &name, admin))?;
        Ok(t!(language, "templates-saved", name = name))
    }

    pub async fn remove_email_template(admin: &SignedIn, name: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.remove_email_template(&admin.tenant, &actor(admin), name).await {
            Ok(()) => Ok(t!(language, "templates-removed", name = name)),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "templates-not-found", name = name)))
            }
            Err(error) => Err(unavailable(error)),
        }
    }
}
