//! A router that keeps the list of the routes it is built with (method and path), so that the
//! whole HTTP surface can be listed from the code that serves it: the authorization matrix test
//! is generated from that list, and a new route without a rule there fails it.

use axum::{
    handler::Handler,
    http::Method,
    routing::{get, post},
    Router,
};

/// A [`Router`] and the routes it serves.
pub struct ListedRouter<S> {
    router: Router<S>,
    routes: Vec<(Method, String)>,
}

impl<S: Clone + Send + Sync + 'static> Default for ListedRouter<S> {
    fn default() -> Self {
        Self { router: Router::new(), routes: Vec::new() }
    }
}

impl<S: Clone + Send + Sync + 'static> ListedRouter<S> {
    /// `GET path` served by `handler`.
    pub fn get<H: Handler<T, S>, T: 'static>(mut self, path: &str, handler: H) -> Self {
        self.routes.push((Method::GET, path.to_owned()));
        self.router = self.router.route(path, get(handler));
        self
    }

    /// `POST path` served by `handler`.
    pub fn post<H: Handler<T, S>, T: 'static>(mut self, path: &str, handler: H) -> Self {
        self.routes.push((Method::POST, path.to_owned()));
        self.router = self.router.route(path, post(handler));
        self
    }

    /// `path` for `POST`, `GET` and `DELETE`, all served by `handler` (a protocol of its own, such
    /// as MCP's streamable HTTP).
    pub fn any<H: Handler<T, S>, T: 'static>(mut self, path: &str, handler: H) -> Self {
        for method in [Method::POST, Method::GET, Method::DELETE] {
            self.routes.push((method, path.to_owned()));
        }
        self.router = self.router.route(path, axum::routing::any(handler));
        self
    }

    /// `other`'s routes under `prefix`.
    pub fn nest(mut self, prefix: &str, other: ListedRouter<S>) -> Self {
        self.routes
            .extend(other.routes.into_iter().map(|(method, path)| (method, format!("{prefix}{path}"))));
        self.router = self.router.nest(prefix, other.router);
        self
    }

    /// `other`'s routes beside these.
    pub fn merge(mut self, other: ListedRouter<S>) -> Self {
        self.routes.extend(other.routes);
        self.router = self.router.merge(other.router);
        self
    }

    /// The router, with `change` made to it (a layer, a fallback); the list stays.
    pub fn map(mut self, change: impl FnOnce(Router<S>) -> Router<S>) -> Self {
        self.router = change(self.router);
        self
    }

    pub fn routes(&self) -> &[(Method, String)] {
        &self.routes
    }

    pub fn into_router(self) -> Router<S> {
        self.router
    }
}
