//! Conflicts: each refused request (the same op id with other parameters) beside the stored
//! operation, field by field.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::{machine::State, params::FieldDiff};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictView {
    pub id: i64,
    pub op_id: String,
    pub requested_by: String,
    pub received_at: DateTime<Utc>,
    pub stored_state: State,
    pub diff: Vec<FieldDiff>,
    pub requested_params: String,
    pub stored_params: String,
}

#[server(prefix = "/rpc", endpoint = "conflicts")]
pub async fn conflicts() -> Result<Vec<ConflictView>, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Conflicts).await?;
    ssr::conflicts(&user).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{reads, unavailable, SignedIn};

    pub async fn conflicts(user: &SignedIn) -> Result<Vec<ConflictView>, AppError> {
        let conflicts = reads().recent_conflicts(&user.tenant, 100).await.map_err(unavailable)?;
        Ok(conflicts
            .into_iter()
            .map(|c| ConflictView {
                id: c.conflict.id,
                op_id: c.conflict.op_id.to_string(),
                requested_by: c.conflict.requested_by,
                received_at: c.conflict.received_at,
                stored_state: c.stored_state,
                diff: c.conflict.diff,
                requested_params: serde_json::to_string_pretty(&c.conflict.requested_params)
                    .unwrap_or_default(),
                stored_params: serde_json::to_string_pretty(&c.stored_params).unwrap_or_default(),
            })
            .collect())
    }
}
