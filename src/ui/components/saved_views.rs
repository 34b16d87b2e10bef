//! Saved views: the list of the viewer's views (the overview's panel, and the operations list's
//! row of links), each opening at `/views/<id>` with how many operations it lists now, and the
//! form that saves the list's current filters as a view.

use leptos::prelude::*;

use crate::console::language::current_language;
use crate::console::saved_views::{saved_views, RemoveView, SaveView, ViewList, COUNT_UP_TO};
use crate::domain::policy::Role;
use crate::t;
use crate::ui::components::widgets::ViewerResource;

/// The viewer's saved views as a list of links with their counts, and, given `save_filter` (the
/// list's URL query), the form that saves it as a view; nothing for a viewer the operations list
/// is closed to. `compact` leaves out the empty state and the remove buttons.
#[component]
pub fn SavedViewsPanel(
    #[prop(optional)] compact: bool,
    #[prop(optional_no_strip)] save_filter: Option<String>,
) -> impl IntoView {
    let views = Resource::new(|| (), |_| saved_views());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Suspense>
            {move || {
                let save_filter = save_filter.clone();
                Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    views.await.ok().map(|list| {
                        let form = save_filter.filter(|_| list.may_save).map(|filter| view! {
                            <SaveViewForm filter csrf=csrf.clone() form_key=list.form_key.clone() may_share=list.may_share/>
                        });
                        view! { <ViewLinks list csrf compact/> {form} }
                    })
                })
            }}
        </Suspense>
    }
}

#[component]
fn ViewLinks(list: ViewList, csrf: String, compact: bool) -> impl IntoView {
    let form_key = list.form_key.clone();
    let language = current_language();
    let remove = ServerAction::<RemoveView>::new();
    if list.views.is_empty() {
        return (!compact)
            .then(|| view! {
                <section class="panel" data-testid="saved-views">
                    <h2>{t!(language, "views-heading")}</h2>
                    <p class="muted">{t!(language, "views-empty")}</p>
                </section>
            })
            .into_any();
    }
    let items = list
        .views
        .into_iter()
        .map(|view| {
            let count = match view.count {
                Some(count) => language.count(count),
                None => t!(language, "views-count-more", count = language.count(COUNT_UP_TO)),
            };
            let whose = if view.shared { t!(language, "views-shared") } else { t!(language, "views-yours") };
            let default = view.default_for.as_deref().and_then(Role::parse).map(|role| {
                view! { <span class="badge">{t!(language, "views-default-for", role = role.label_in(language))}</span> }
            });
            let (csrf, id, name) = (csrf.clone(), view.id.clone(), view.name.clone());
            let key = format!("{form_key}-remove-view-{id}");
            let removal = (view.removable && !compact).then(move || {
                view! {
                    <ActionForm action=remove attr:class="inline-form">
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="key" value=key/>
                        <input type="hidden" name="id" value=id/>
                        <button type="submit" class="button button-quiet" aria-label=format!("{} {name}", t!(language, "views-remove"))>{t!(language, "views-remove")}</button>
                    </ActionForm>
                }
            });
            view! {
                <li class="saved-view" class:default=view.default_for_me data-testid="saved-view">
                    <a href=format!("/views/{}", view.id)>{view.name.clone()}</a>
                    " "<span class="card-number-small" data-testid="saved-view-count">{count}</span>
                    " "<span class="muted">{whose}</span>
                    {default}
                    {removal}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="panel" class:compact=compact data-testid="saved-views" aria-labelledby="saved-views-heading">
            <h2 id="saved-views-heading" class:visually-hidden=compact>{t!(language, "views-heading")}</h2>
            <ul class="saved-views">{items}</ul>
        </section>
    }
    .into_any()
}

/// The form that saves the list's filters (`filter`, its URL query) as a view; a manager may share
/// it and make it a role's default.
#[component]
fn SaveViewForm(filter: String, csrf: String, form_key: String, may_share: bool) -> impl IntoView {
    let language = current_language();
    let save = ServerAction::<SaveView>::new();
    let key = format!("{form_key}-save-view");
    let sharing = may_share.then(|| {
        view! {
            <label class="check"><input type="checkbox" name="shared" value="yes" data-testid="view-shared"/>{t!(language, "views-share")}</label>
            <label>{t!(language, "views-default-role")}
                <select name="default_for" data-testid="view-default-for">
                    <option value="">{t!(language, "views-default-none")}</option>
                    {[Role::Support, Role::Manager, Role::Auditor].into_iter().map(|role| view! {
                        <option value=role.as_str()>{role.label_in(language)}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    });
    view! {
        <details class="save-view">
            <summary>{t!(language, "views-save-heading")}</summary>
            <ActionForm action=save attr:class="filters" attr:data-testid="save-view">
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="key" value=key/>
                <input type="hidden" name="query" value=filter/>
                <label>{t!(language, "views-name")}<input type="text" name="name" required maxlength="60" size="24" data-testid="view-name"/></label>
                {sharing}
                <button type="submit" class="button" data-testid="view-save">{t!(language, "views-save")}</button>
            </ActionForm>
        </details>
    }
}
