//! Saved views of the operations list: the views a person sees (their own and the tenant's
//! shared ones, the default of their role first), each with how many operations it lists now and
//! the URL that opens it (`/views/<id>`, which sends the browser to the list with the view's
//! filters); and [`save_view`] and [`remove_view`]. A view of a filter the list does not have is
//! refused with a sentence; so is one whose values the list would refuse.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// One saved view as the overview and the list show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedViewRow {
    pub id: String,
    pub name: String,
    /// The list's URL query it opens.
    pub filter: String,
    /// Shared with the tenant (else the viewer's own).
    pub shared: bool,
    /// The role whose default it is.
    pub default_for: Option<String>,
    /// Whether it is the default of the viewer's role.
    pub default_for_me: bool,
    /// Whether the viewer may remove it.
    pub removable: bool,
    /// How many operations it lists now, up to [`COUNT_UP_TO`]; `None` when that many or more.
    pub count: Option<u64>,
}

/// The views of the viewer, and whether they may share one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewList {
    pub views: Vec<SavedViewRow>,
    pub may_share: bool,
    pub may_save: bool,
    /// The key prefix of the page's forms.
    pub form_key: String,
}

/// The most operations a view's count counts; past it the count says "N or more".
pub const COUNT_UP_TO: u64 = 500;

#[server(prefix = "/rpc", endpoint = "saved_views")]
pub async fn saved_views() -> Result<ViewList, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Operations).await?;
    ssr::saved_views(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Saves the list's filter `query` (its URL query) as the view `name`, the viewer's own unless
/// `shared` is `yes` (a manager's), the default of the role `default_for` when given (shared only).
#[server(prefix = "/rpc", endpoint = "save_view")]
pub async fn save_view(
    csrf: String,
    key: String,
    #[server(default)] name: String,
    #[server(default)] query: String,
    #[server(default)] shared: String,
    #[server(default)] default_for: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let answer = ssr::save_view(&user, &key, &name, &query, &shared, &default_for)
        .await
        .inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

#[server(prefix = "/rpc", endpoint = "remove_view")]
pub async fn remove_view(csrf: String, key: String, id: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Operations, &csrf).await?;
    let answer = ssr::remove_view(&user, &key, &id).await.inspect_err(crate::console::guard::set_error_status)?;
    crate::console::forms::ssr::show_answer_after_form_post(&key);
    Ok(answer)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use axum::extract::{Path, State};
    use axum::response::{IntoResponse, Redirect, Response};
    use tower_sessions::Session;

    use super::*;
    use crate::console::desk::ssr::viewer;
    use crate::console::forms::ssr::once;
    use crate::console::guard::{allowed, status_of, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::console::operations::ssr::operation_query;
    use crate::console::operations::OperationFilter;
    use crate::domain::policy::{Role, Section};
    use crate::domain::saved_view::{filter_pairs, ViewProblem, ViewRequest, ViewScope};
    use crate::server::http::listed::ListedRouter;
    use crate::server::http::state::AppState;
    use crate::server::ledger::desk::DeskError;
    use crate::server::store::desk::ViewRecord;
    use crate::t;

    /// `GET /views/<id>`, which opens a saved view.
    pub fn routes() -> ListedRouter<AppState> {
        ListedRouter::default().get("/views/{id}", open_view)
    }

    /// The list's filter of a view's query.
    pub fn filter_of(query: &str) -> Result<OperationFilter, AppError> {
        let pairs = filter_pairs(query).map_err(|problem| problem_words(&problem))?;
        let join = |name: &str| {
            let values: Vec<&str> =
                pairs.iter().filter(|(n, _)| n == name).map(|(_, value)| value.as_str()).collect();
            (!values.is_empty()).then(|| values.join(","))
        };
        Ok(OperationFilter {
            state: join("state"),
            kind: join("kind"),
            provider: join("provider"),
            subject: join("subject"),
            q: join("q"),
            from: join("from"),
            to: join("to"),
            held: join("held"),
            after: None,
        })
    }

    fn problem_words(problem: &ViewProblem) -> AppError {
        let language = current_language();
        AppError::Invalid(match problem {
            ViewProblem::Name => t!(language, "views-name-problem", most = crate::domain::saved_view::VIEW_NAME_MAX),
            ViewProblem::UnknownFilter(name) => t!(
                language,
                "views-unknown-filter",
                name = name,
                known = crate::domain::saved_view::VIEW_FILTERS.join(", ")
            ),
            ViewProblem::Unreadable => t!(language, "views-unreadable"),
            ViewProblem::Default => t!(language, "views-default-problem"),
            ViewProblem::NotAllowed => t!(language, "views-not-allowed"),
        })
    }

    async fn count_of(user: &SignedIn, view: &ViewRecord) -> Result<Option<u64>, AppError> {
        let Ok(filter) = filter_of(&view.filter) else { return Ok(Some(0)) };
        let Ok(mut query) = operation_query(&filter, &user.user_id) else { return Ok(Some(0)) };
        query.limit = u32::try_from(COUNT_UP_TO).unwrap_or(u32::MAX);
        let ledger = expect_context::<AppState>().ledger.clone();
        let listed = ledger.reads().list_operations(&user.tenant, &query).await.map_err(unavailable)?;
        let count = listed.len() as u64;
        Ok((count < COUNT_UP_TO).then_some(count))
    }

    /// Refuses an admin, who keeps no views (an admin's work is people and settings).
    fn refuse_admins(user: &SignedIn) -> Result<(), AppError> {
        if user.role == Role::Admin {
            tracing::warn!(user = %user.name, "refused: an admin keeps no views");
            return Err(AppError::Forbidden);
        }
        Ok(())
    }

    pub async fn saved_views(user: &SignedIn) -> Result<ViewList, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let records = ledger.saved_views(&user.tenant, &user.user_id).await.map_err(unavailable)?;
        let mut views = Vec::with_capacity(records.len());
        for record in &records {
            views.push(SavedViewRow {
                id: record.id.clone(),
                name: record.name.clone(),
                filter: record.filter.clone(),
                shared: record.scope.is_empty(),
                default_for: record.default_for.map(|role| role.as_str().to_owned()),
                default_for_me: record.default_for == Some(user.role),
                removable: !record.scope.is_empty() || user.role == Role::Manager,
                count: count_of(user, record).await?,
            });
        }
        views.sort_by_key(|view| !view.default_for_me);
        Ok(ViewList {
            views,
            may_share: user.role == Role::Manager,
            may_save: user.role != Role::Admin,
            form_key: crate::server::ledger::requests::form_key(),
        })
    }

    pub async fn save_view(
        user: &SignedIn,
        key: &str,
        name: &str,
        filter: &str,
        shared: &str,
        default_for: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        refuse_admins(user)?;
        let default_for = match default_for.trim() {
            "" => None,
            role => Some(Role::parse(role).ok_or_else(|| problem_words(&ViewProblem::Default))?),
        };
        let request = ViewRequest {
            name: name.to_owned(),
            filter: filter.to_owned(),
            scope: if shared.trim() == "yes" { ViewScope::Shared } else { ViewScope::Personal },
            default_for,
        };
        operation_query(&filter_of(filter)?, &user.user_id)?;
        let ledger = expect_context::<AppState>().ledger.clone();
        let described = format!("save view {}", name.trim());
        once(user, key, &described, |_| async move {
            let view = ledger.save_view(&user.tenant, &viewer(user), user.role, &request).await.map_err(|error| {
                match error {
                    DeskError::View(problem) => problem_words(&problem),
                    DeskError::ViewNameTaken(name) => AppError::Invalid(t!(language, "views-name-taken", name = name)),
                    DeskError::Refused(_) => AppError::Forbidden,
                    DeskError::Store(error) => unavailable(error),
                    other => {
                        tracing::warn!(error = %other, "a view could not be saved");
                        AppError::Unavailable
                    }
                }
            })?;
            Ok(t!(language, "views-saved", name = view.name, id = view.id))
        })
        .await
    }

    pub async fn remove_view(user: &SignedIn, key: &str, id: &str) -> Result<String, AppError> {
        let language = current_language();
        refuse_admins(user)?;
        let ledger = expect_context::<AppState>().ledger.clone();
        let described = format!("remove view {}", id.trim());
        once(user, key, &described, |_| async move {
            ledger.remove_view(&user.tenant, id.trim(), &viewer(user), user.role).await.map_err(|error| match error {
                DeskError::NoSuchView => AppError::NotFound(t!(language, "views-no-such-view")),
                DeskError::Store(error) => unavailable(error),
                other => {
                    tracing::warn!(error = %other, "a view could not be removed");
                    AppError::Unavailable
                }
            })?;
            Ok(t!(language, "views-removed"))
        })
        .await
    }

    /// Opens the view `id` of the signed-in person's: the list with its filters; a view they do
    /// not see is not found.
    async fn open_view(State(state): State<AppState>, session: Session, Path(id): Path<String>) -> Response {
        let user = match allowed(&session, Section::Operations).await {
            Ok(user) => user,
            Err(error) => return (status_of(&error), error.to_string()).into_response(),
        };
        let views = match state.ledger.saved_views(&user.tenant, &user.user_id).await {
            Ok(views) => views,
            Err(error) => {
                let error = unavailable(error);
                return (status_of(&error), error.to_string()).into_response();
            }
        };
        match views.into_iter().find(|view| view.id == id) {
            Some(view) => Redirect::to(&format!("/operations?{}", view.filter)).into_response(),
            None => {
                let error = AppError::NotFound(t!(current_language(), "views-no-such-view"));
                (status_of(&error), error.to_string()).into_response()
            }
        }
    }
}
