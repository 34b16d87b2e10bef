//! Pages and components of the review console, rendered on the server; only the islands among the
//! components are hydrated in the browser.
//! Pages import components and the console's slices, never each other.

pub mod components;
pub mod pages;
