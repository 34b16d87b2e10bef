//! The retention page (`/admin/retention`): how long the tenant keeps closed operations hot and
//! where its archive is, the last or running sweep, the archive files, and the forms to set or end
//! the retention and to sweep now.

use leptos::prelude::*;

use super::{code, with_code, with_time, AdminFrame, AdminTab, TIME_MARK};
use crate::console::language::current_language;
use crate::console::retention::{
    retention, ArchiveFileView, RemoveRetention, SetRetention, SweepNow, SweepView,
};
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

#[component]
pub fn AdminRetention() -> impl IntoView {
    view! {
        <AdminFrame tab=AdminTab::Retention>
            <Retention/>
        </AdminFrame>
    }
}

#[component]
fn Retention() -> impl IntoView {
    let language = current_language();
    let set = ServerAction::<SetRetention>::new();
    let remove = ServerAction::<RemoveRetention>::new();
    let sweep = ServerAction::<SweepNow>::new();
    let page = Resource::new(|| (), |_| retention());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="retention">
            <h2>{t!(language, "admin-retention-heading")}</h2>
            <p class="muted">{t!(language, "admin-retention-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    let page = match page.await {
                        Ok(page) => page,
                        Err(error) => return view! { <ErrorPanel error/> }.into_any(),
                    };
                    let policy = match (page.days, page.archive_url.clone()) {
                        (Some(days), Some(archive)) => {
                            let sentence = t!(language, "admin-retention-current", days = days, archive = archive.as_str(), name = page.updated_by.clone().unwrap_or_default(), time = TIME_MARK);
                            view! { <p class="break" data-testid="retention-current">{with_time(sentence, page.updated_at.unwrap_or_default())}</p> }.into_any()
                        }
                        _ => view! { <p class="empty-state" data-testid="retention-current">{t!(language, "admin-retention-empty")}</p> }.into_any(),
                    };
                    let has_policy = page.days.is_some();
                    let form = if page.signs {
                        view! { <RetentionForm set csrf=csrf.clone() days=page.days archive=page.archive_url.clone()/> }.into_any()
                    } else {
                        let needed = t!(language, "admin-retention-need-key-form", variable = code("OPLEDGER_SECRET_KEY"), command = code("openssl rand -hex 32"));
                        view! { <p class="empty-state">{with_code(needed)}</p> }.into_any()
                    };
                    let actions = has_policy.then(|| {
                        let csrf_remove = csrf.clone();
                        view! {
                            <div class="button-row">
                                <ActionForm action=sweep attr:class="inline-form" attr:data-answer-to="retention-result">
                                    <input type="hidden" name="csrf" value=csrf.clone()/>
                                    <button type="submit" class="button" data-testid="sweep-now">{t!(language, "admin-retention-sweep-now")}</button>
                                </ActionForm>
                                <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="retention-result"
                                    attr:data-confirm=t!(language, "admin-retention-remove-consequence")>
                                    <input type="hidden" name="csrf" value=csrf_remove/>
                                    <input type="hidden" name="confirmed" value=""/>
                                    <button type="submit" class="button danger">{t!(language, "admin-retention-remove")}</button>
                                </ActionForm>
                            </div>
                        }
                    });
                    let key = page.public_key.clone().map(|key| {
                        let sentence = t!(language, "admin-retention-key", key = code(&key), command = code("opledger audit verify-archive"));
                        view! { <p class="muted break" data-testid="retention-key">{with_code(sentence)}</p> }
                    });
                    view! {
                        {policy}
                        {page.sweep.clone().map(|sweep| view! { <SweepLine sweep/> })}
                        {form}
                        {actions}
                        {key}
                        <FileList files=page.files.clone()/>
                    }.into_any()
                })}
            </Transition>
            <p class="action-result" role="status" id="retention-result" data-testid="retention-result"></p>
        </section>
    }
}

/// The retention form: days after closing, and the archive's URL.
#[component]
fn RetentionForm(
    set: ServerAction<SetRetention>,
    csrf: String,
    days: Option<u32>,
    archive: Option<String>,
) -> impl IntoView {
    let language = current_language();
    view! {
        <ActionForm action=set attr:class="filters" attr:data-answer-to="retention-result">
            <input type="hidden" name="csrf" value=csrf/>
            <label>{t!(language, "admin-retention-days")}
                <input type="number" name="days" min="1" max="36500" required value=days.map(|days| days.to_string()) size="6" inputmode="numeric"/>
            </label>
            <label class="grow">{t!(language, "admin-retention-archive")}
                <input type="text" name="archive_url" required value=archive placeholder="file:///var/lib/opledger/archive" size="20" autocomplete="off" spellcheck="false"/>
            </label>
            <div class="filter-actions"><button type="submit" class="button">{t!(language, "admin-retention-save")}</button></div>
        </ActionForm>
        <p class="muted break">{t!(language, "admin-retention-archive-help")}</p>
    }
}

/// The last or running sweep in words.
#[component]
fn SweepLine(sweep: SweepView) -> impl IntoView {
    let language = current_language();
    let line = match (sweep.running, sweep.finished_at) {
        (true, _) => {
            view! { {t!(language, "admin-retention-sweep-running", archived = sweep.archived)} }.into_any()
        }
        (false, Some(at)) => with_time(
            t!(language, "admin-retention-sweep-ended", archived = sweep.archived, time = TIME_MARK),
            at,
        ),
        (false, None) => view! { {t!(language, "admin-retention-sweep-never")} }.into_any(),
    };
    view! {
        <p data-testid="retention-sweep">{line}</p>
        {sweep.last_error.map(|error| view! { <p class="error break" data-testid="retention-sweep-error">{t!(language, "admin-retention-sweep-stopped", problem = error)}</p> })}
    }
}

/// The archive files, newest first.
#[component]
fn FileList(files: Vec<ArchiveFileView>) -> impl IntoView {
    let language = current_language();
    if files.is_empty() {
        return view! { <p class="empty-state" data-testid="archive-files-empty">{t!(language, "admin-retention-files-empty")}</p> }.into_any();
    }
    let (file, operations, closed, state, sha) = (
        t!(language, "admin-retention-file"),
        t!(language, "admin-retention-file-operations"),
        t!(language, "admin-retention-file-closed"),
        t!(language, "admin-retention-file-state"),
        t!(language, "admin-retention-file-sha"),
    );
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="archive-files">
                <caption>{t!(language, "admin-retention-files")}</caption>
                <thead><tr>
                    <th scope="col">{file.clone()}</th>
                    <th scope="col">{operations.clone()}</th>
                    <th scope="col">{closed.clone()}</th>
                    <th scope="col">{state.clone()}</th>
                    <th scope="col">{sha.clone()}</th>
                </tr></thead>
                <tbody>
                    {files.into_iter().map(|each| {
                        let words = match (each.sealed, each.distrust) {
                            (true, Some(why)) => view! {
                                <span class="badge state-rejected" data-testid="archive-file-untrusted">
                                    {t!(language, "admin-retention-file-untrusted", why = why.words(language))}
                                </span>
                            }.into_any(),
                            (true, None) => t!(language, "admin-retention-file-sealed").into_any(),
                            (false, _) => t!(language, "admin-retention-file-writing").into_any(),
                        };
                        view! {
                            <tr>
                                <td data-label=file.clone() class="break"><code>{each.object_path}</code></td>
                                <td data-label=operations.clone()>{match each.audit_span {
                                    Some((first, last)) => t!(language, "admin-retention-file-audit", first = first, last = last),
                                    None => t!(language, "admin-retention-file-holds-operations", count = each.operations),
                                }}</td>
                                <td data-label=closed.clone()>{each.closed_from.map(|at| view! { <Time at/> })}" – "{each.closed_to.map(|at| view! { <Time at/> })}</td>
                                <td data-label=state.clone()>{words}</td>
                                <td data-label=sha.clone()><code>{each.sha256.map(|sha| sha.chars().take(16).collect::<String>())}</code></td>
                            </tr>
                        }.into_any()
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
    .into_any()
}
