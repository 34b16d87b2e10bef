//! Pages and components of the review console, rendered on the server and hydrated in the browser.
//! Pages import components and the console's slices, never each other.

pub mod components;
pub mod pages;
