//! What several pages share: the frame (navigation, the signed-in user), action forms that send a
//! change once and show its answer, and small widgets (pager, empty states, state badges, times).

pub mod actions;
pub mod layout;
pub mod widgets;
