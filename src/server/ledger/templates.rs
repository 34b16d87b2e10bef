//! A tenant's customer email templates: saving one (checked first, with an audit event that names
//! it) and removing one.

use serde_json::json;

use super::{Ledger, LedgerError};
use crate::domain::email::EmailTemplate;
use crate::domain::ids::{Actor, TenantId};
use crate::server::clock::now;
use crate::server::store::records::EmailTemplateRecord;
use crate::server::store::StoreError;

impl Ledger {
    /// Saves `template` for `tenant` (replacing one of the same name), once it is well formed.
    pub async fn set_email_template(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        template: EmailTemplate,
    ) -> Result<(), LedgerError> {
        let template = EmailTemplate { subject: template.subject.trim().to_owned(), ..template };
        template.check().map_err(LedgerError::Invalid)?;
        let evidence = json!({"name": template.name, "subject": template.subject});
        let audit = Self::action_entry(tenant, actor, "set_email_template", evidence);
        let record = EmailTemplateRecord {
            tenant: tenant.clone(),
            template,
            updated_by: actor.name.clone(),
            updated_at: now(),
        };
        Ok(self.store.set_email_template(record, audit).await?)
    }

    /// Removes `tenant`'s template `name`; `NotFound` when it has none.
    pub async fn remove_email_template(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        name: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "remove_email_template", json!({"name": name}));
        self.store.remove_email_template(tenant, name, audit).await
    }
}
