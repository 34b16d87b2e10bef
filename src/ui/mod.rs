//! Pages and components of the review console, rendered on the server and hydrated in the browser.

pub mod actions;
pub mod layout;
pub mod pages;
pub mod widgets;
