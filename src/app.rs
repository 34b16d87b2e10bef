//! The HTML shell and the route table of the review console.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    StaticSegment,
};

use crate::ui::layout::Layout;
use crate::ui::pages::{NotFound, Overview, Upcoming};

/// The document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light"/>
                <link rel="icon" href="/favicon.ico"/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Stylesheet id="leptos" href="/pkg/opledger.css"/>
        <Title formatter=|page: String| format!("{page} · opledger")/>
        <Router>
            <Layout>
                <Routes fallback=NotFound>
                    <Route path=StaticSegment("") view=Overview/>
                    <Route path=StaticSegment("operations") view=|| view! { <Upcoming title="Operations" what="Every operation with its state, attempts and external ids, filterable by state, kind, provider and order."/> }/>
                    <Route path=StaticSegment("orders") view=|| view! { <Upcoming title="Orders" what="One view per order with the roll-up of its operations and their net effect."/> }/>
                    <Route path=StaticSegment("approvals") view=|| view! { <Upcoming title="Approvals" what="Refunds waiting for a manager's decision, with the requester and the amount."/> }/>
                    <Route path=StaticSegment("reconcile") view=|| view! { <Upcoming title="Reconcile" what="Operations whose result is unknown, oldest first, with the way to settle each."/> }/>
                    <Route path=StaticSegment("audit") view=|| view! { <Upcoming title="Audit" what="Every state change and human action, hash-chained, with a verifiable export."/> }/>
                </Routes>
            </Layout>
        </Router>
    }
}
