//! What several pages share: the frame (navigation, the signed-in user), action forms that send a
//! change once and show its answer, who holds an item of the support desk and its notes, saved views, the island that sends those forms in the background, the
//! island that follows changes, and small widgets (pager, empty states, state badges, times).

pub mod actions;
pub mod desk;
pub mod form_helper;
pub mod layout;
pub mod live;
pub mod notifications;
pub mod saved_views;
pub mod widgets;
