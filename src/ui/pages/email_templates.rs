//! The admin page's customer email templates: each template with its subject and body, a form to
//! save one (a name saved again replaces it) and a button to remove one. Agents send a template
//! to an order's customer with the `send_customer_email` tool, through the tenant's email account.

use leptos::prelude::*;

use crate::console::email_templates::{email_templates, RemoveEmailTemplate, SetEmailTemplate, TemplateView};
use crate::console::language::current_language;
use crate::domain::email::PLACEHOLDERS;
use crate::t;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};

#[component]
pub fn EmailTemplates() -> impl IntoView {
    let language = current_language();
    let set = ServerAction::<SetEmailTemplate>::new();
    let remove = ServerAction::<RemoveEmailTemplate>::new();
    let templates = Resource::new(|| (), |_| email_templates());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="email-templates">
            <h2>{t!(language, "templates-heading")}</h2>
            <p class="muted">{t!(language, "templates-intro", tool = "send_customer_email")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    let placeholders = PLACEHOLDERS.map(|name| format!("{{{name}}}")).join(", ");
                    match templates.await {
                        Ok(templates) => view! {
                            <TemplateList templates remove csrf=csrf.clone()/>
                            <ActionForm action=set attr:class="filters" attr:data-answer-to="templates-result">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>{t!(language, "templates-name")}<input type="text" name="name" required placeholder="refund_issued" size="16" autocomplete="off"/></label>
                                <label class="grow">{t!(language, "templates-subject")}<input type="text" name="subject" required placeholder=t!(language, "templates-subject-example") autocomplete="off"/></label>
                                <label class="wide-field">{t!(language, "templates-body")}
                                    <textarea name="body" rows="5" required aria-describedby="template-hint"></textarea>
                                </label>
                                <p class="muted small hint" id="template-hint">{t!(language, "templates-placeholders", placeholders = placeholders)}</p>
                                <div class="filter-actions"><button type="submit" class="button">{t!(language, "templates-save")}</button></div>
                            </ActionForm>
                        }.into_any(),
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="templates-result" data-testid="templates-result"></p>
        </section>
    }
}

#[component]
fn TemplateList(
    templates: Vec<TemplateView>,
    remove: ServerAction<RemoveEmailTemplate>,
    csrf: String,
) -> impl IntoView {
    let language = current_language();
    if templates.is_empty() {
        return view! { <p class="empty-state">{t!(language, "templates-empty")}</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="templates">
            <thead><tr>
                <th scope="col">{t!(language, "templates-name")}</th>
                <th scope="col">{t!(language, "templates-col-text")}</th>
                <th scope="col">{t!(language, "templates-col-set")}</th>
                <th scope="col">{t!(language, "templates-col-actions")}</th>
            </tr></thead>
            <tbody>
                {templates.into_iter().map(|template| {
                    let csrf = csrf.clone();
                    view! {
                        <tr>
                            <td><code>{template.name.clone()}</code></td>
                            <td><strong>{template.subject}</strong><pre class="template-body">{template.body}</pre></td>
                            <td>{template.updated_by}" "<Time at=template.updated_at/></td>
                            <td>
                                <ActionForm action=remove attr:class="inline-form" attr:data-answer-to="templates-result">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="name" value=template.name/>
                                    <button type="submit" class="button button-quiet">{t!(language, "templates-remove")}</button>
                                </ActionForm>
                            </td>
                        </tr>
                    }
                    .into_any()
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
    .into_any()
}
