//! Notifications: telling managers, reconcilers and admins by e-mail, Slack, Microsoft Teams and
//! LINE that something waits for them. [`channels`] sends one rendered notice to one destination.

pub mod channels;
