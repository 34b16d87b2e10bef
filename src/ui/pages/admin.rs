//! The admin page: the tenant's console users, and a form to add one. Only admins open it; the
//! server checks the role for the page and again for the form.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{users, AddUser};
use crate::domain::policy::Role;
use crate::ui::widgets::{ErrorPanel, Loading, Time, ViewerResource};

#[component]
pub fn Admin() -> impl IntoView {
    let add = ServerAction::<AddUser>::new();
    let list = Resource::new(move || add.version().get(), |_| users());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text="Admin"/>
        <h1>"Admin"</h1>
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match list.await {
                    Ok(users) => view! {
                        <section class="panel">
                            <h2>"Users of this tenant"</h2>
                            <table class="table" data-testid="users">
                                <thead><tr><th scope="col">"Name"</th><th scope="col">"Role"</th><th scope="col">"Added"</th></tr></thead>
                                <tbody>
                                    {users.into_iter().map(|u| view! {
                                        <tr><td>{u.name}</td><td>{u.role.as_str()}</td><td><Time at=u.created_at/></td></tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </section>
                        <section class="panel">
                            <h2>"Add a user"</h2>
                            <ActionForm action=add attr:class="filters">
                                <input type="hidden" name="csrf" value=csrf/>
                                <label>"Name"<input type="text" name="name" required autocomplete="off"/></label>
                                <label>"Role"
                                    <select name="role">
                                        {Role::ALL.into_iter().map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
                                    </select>
                                </label>
                                <label>"Password (10 characters or more)"<input type="password" name="password" required minlength="10" autocomplete="new-password"/></label>
                                <div class="filter-actions"><button type="submit" class="button">"Add user"</button></div>
                            </ActionForm>
                            <p role="status">
                                {move || match add.value().get() {
                                    Some(Ok(message)) => message,
                                    Some(Err(error)) => error.to_string(),
                                    None => String::new(),
                                }}
                            </p>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}
