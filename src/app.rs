//! The HTML shell and the route table of the review console. Pages are rendered on the server
//! with their data (`SsrMode::Async`), so that every page reads fully with JavaScript off and a
//! refused request gets its status (401, 403, 404) before the first byte. Only islands (`#[island]`:
//! local times, the live list, the form helper, the connection check) run in the browser; every
//! link is a page load, and the browser bundle carries the islands' code alone.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

use crate::console::shell::who_am_i;
use crate::ui::components::layout::Layout;
use crate::ui::components::widgets::ViewerResource;
use crate::ui::pages::{
    account::AccountPage,
    admin::{AdminAccess, AdminNotifications, AdminPeople, AdminPolicy, AdminProviders, AdminRetention, AdminWebhooks},
    approvals::Approvals,
    audit::Audit,
    bulk::{BulkPage, BulkRunPage},
    conflicts::Conflicts,
    login::Login,
    my_notifications::MyNotificationsPage,
    operation::OperationPage,
    operations::Operations,
    orders::{OrderPage, Orders},
    overview::Overview,
    password_reset::PasswordReset,
    reconcile::Reconcile,
    search::SearchPage,
    two_factor::SecondStep,
    NotFound,
};

/// The document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::server::http::security::protect_page();
    #[cfg(feature = "ssr")]
    let stylesheet = crate::server::http::assets::BUILT_ASSETS.stylesheet();
    #[cfg(not(feature = "ssr"))]
    let stylesheet = "/pkg/opledger.css";
    let language = crate::console::language::current_language();
    #[cfg(feature = "ssr")]
    let words = crate::domain::language::page_words::json_for(language);
    #[cfg(not(feature = "ssr"))]
    let words = "{}";
    view! {
        <!DOCTYPE html>
        <html lang=language.tag()>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light"/>
                <link rel="icon" href="/favicon.ico"/>
                <link rel="stylesheet" id="leptos" href=stylesheet/>
                <HydrationScripts options islands=true/>
                <MetaTags/>
                <script type="application/json" id=crate::domain::language::page_words::ELEMENT_ID nonce=leptos::nonce::use_nonce() inner_html=words></script>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The document's title for a page. The server writes it into the HTML as it stands
/// (`leptos_meta` does not escape it), so it is escaped there; the browser never renders it.
fn page_title(page: String) -> String {
    let title = format!("{page} · opledger");
    #[cfg(feature = "ssr")]
    let title = html_escape::encode_text(&title).into_owned();
    title
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let viewer: ViewerResource = Resource::new(|| (), |_| who_am_i());
    provide_context(viewer);
    view! {
        <Title formatter=|page: String| page_title(page)/>
        <Router>
            <Layout>
                <Routes fallback=NotFound>
                    <Route path=path!("/login") view=Login ssr=SsrMode::Async/>
                    <Route path=path!("/login/two-factor") view=SecondStep ssr=SsrMode::Async/>
                    <Route path=path!("/password-reset") view=PasswordReset ssr=SsrMode::Async/>
                    <Route path=path!("/account") view=AccountPage ssr=SsrMode::Async/>
                    <Route path=path!("/account/notifications") view=MyNotificationsPage ssr=SsrMode::Async/>
                    <Route path=path!("/") view=Overview ssr=SsrMode::Async/>
                    <Route path=path!("/operations") view=Operations ssr=SsrMode::Async/>
                    <Route path=path!("/operations/:op_id") view=OperationPage ssr=SsrMode::Async/>
                    <Route path=path!("/orders") view=Orders ssr=SsrMode::Async/>
                    <Route path=path!("/orders/:subject") view=OrderPage ssr=SsrMode::Async/>
                    <Route path=path!("/conflicts") view=Conflicts ssr=SsrMode::Async/>
                    <Route path=path!("/admin") view=AdminPeople ssr=SsrMode::Async/>
                    <Route path=path!("/admin/access") view=AdminAccess ssr=SsrMode::Async/>
                    <Route path=path!("/admin/providers") view=AdminProviders ssr=SsrMode::Async/>
                    <Route path=path!("/admin/policy") view=AdminPolicy ssr=SsrMode::Async/>
                    <Route path=path!("/admin/webhooks") view=AdminWebhooks ssr=SsrMode::Async/>
                    <Route path=path!("/admin/notifications") view=AdminNotifications ssr=SsrMode::Async/>
                    <Route path=path!("/admin/retention") view=AdminRetention ssr=SsrMode::Async/>
                    <Route path=path!("/approvals") view=Approvals ssr=SsrMode::Async/>
                    <Route path=path!("/bulk") view=BulkPage ssr=SsrMode::Async/>
                    <Route path=path!("/bulk/:id") view=BulkRunPage ssr=SsrMode::Async/>
                    <Route path=path!("/reconcile") view=Reconcile ssr=SsrMode::Async/>
                    <Route path=path!("/audit") view=Audit ssr=SsrMode::Async/>
                    <Route path=path!("/search") view=SearchPage ssr=SsrMode::Async/>
                </Routes>
            </Layout>
        </Router>
    }
}
