//! The people of a tenant: whether a user may sign in (active or deactivated), where their sign-in
//! comes from (a local password or the tenant's identity provider), how long a console session
//! lives, and the rules an admin's change to a person must keep: nobody changes their own role or
//! deactivates themselves, a tenant never loses its last active admin, and only a local user's
//! password and second factor are reset here.

use serde::{Deserialize, Serialize};

use super::policy::Role;

/// Whether a user may sign in. A deactivated user keeps their row, so every audit entry stays
/// attributed to them, and can be reactivated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserStatus {
    Active,
    Deactivated,
}

impl UserStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            UserStatus::Active => "active",
            UserStatus::Deactivated => "deactivated",
        }
    }

    pub fn parse(text: &str) -> Option<UserStatus> {
        [UserStatus::Active, UserStatus::Deactivated].into_iter().find(|status| status.as_str() == text)
    }
}

/// Where a user's sign-in comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserSource {
    /// A password kept here (hashed).
    Local,
    /// The tenant's identity provider (OpenID Connect).
    Sso,
}

impl UserSource {
    pub fn as_str(self) -> &'static str {
        match self {
            UserSource::Local => "local",
            UserSource::Sso => "sso",
        }
    }

    pub fn parse(text: &str) -> Option<UserSource> {
        [UserSource::Local, UserSource::Sso].into_iter().find(|source| source.as_str() == text)
    }
}

/// How long a console session lives: `idle` without a request, and `absolute` from sign-in
/// whatever the activity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLifetimes {
    pub idle: chrono::Duration,
    pub absolute: chrono::Duration,
}

impl Default for SessionLifetimes {
    /// 30 minutes idle, 12 hours in all.
    fn default() -> Self {
        SessionLifetimes { idle: chrono::Duration::minutes(30), absolute: chrono::Duration::hours(12) }
    }
}

/// A change an admin makes to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeopleChange {
    SetRole(Role),
    Deactivate,
    Reactivate,
    ResetPassword,
    SignOutEverywhere,
    /// Turns off a person's two-factor sign-in (they lost their phone): their secret and recovery
    /// codes are forgotten and their sessions end; they enrol again at their next sign-in.
    ResetTwoFactor,
}

/// Why a change to a person is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PeopleRefusal {
    #[error("you cannot change your own role; ask another admin")]
    OwnRole,
    #[error("you cannot deactivate yourself; ask another admin")]
    OwnDeactivation,
    #[error("this is the tenant's last active admin; make someone else an admin first")]
    LastAdmin,
    #[error("this person signs in through the tenant's identity provider, which keeps their password")]
    PasswordElsewhere,
    #[error("this person is deactivated; reactivate them first")]
    Deactivated,
    #[error("the API tokens can only go to another active user of the tenant")]
    NoTokenHeir,
    #[error("this person's role comes from their groups at the identity provider, at every sign-in")]
    RoleFromGroups,
    #[error("this person signs in through the tenant's identity provider, which does their second factor")]
    TwoFactorElsewhere,
}

/// The person a change is about, as the store holds them now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub is_self: bool,
    pub role: Role,
    pub status: UserStatus,
    pub source: UserSource,
}

/// Whether `change` to `target` keeps the rules, given how many active admins the tenant has now
/// (the target included, when they are one).
pub fn check_change(change: PeopleChange, target: Target, active_admins: usize) -> Result<(), PeopleRefusal> {
    let is_an_active_admin = target.role == Role::Admin && target.status == UserStatus::Active;
    let last_admin = is_an_active_admin && active_admins <= 1;
    match change {
        PeopleChange::SetRole(_) if target.is_self => Err(PeopleRefusal::OwnRole),
        PeopleChange::SetRole(role) if role != Role::Admin && last_admin => Err(PeopleRefusal::LastAdmin),
        PeopleChange::SetRole(_) if target.source == UserSource::Sso => Err(PeopleRefusal::RoleFromGroups),
        PeopleChange::Deactivate if target.is_self => Err(PeopleRefusal::OwnDeactivation),
        PeopleChange::Deactivate if last_admin => Err(PeopleRefusal::LastAdmin),
        PeopleChange::ResetPassword if target.source == UserSource::Sso => {
            Err(PeopleRefusal::PasswordElsewhere)
        }
        PeopleChange::ResetPassword if target.status == UserStatus::Deactivated => {
            Err(PeopleRefusal::Deactivated)
        }
        PeopleChange::ResetTwoFactor if target.source == UserSource::Sso => {
            Err(PeopleRefusal::TwoFactorElsewhere)
        }
        _ => Ok(()),
    }
}

/// The longest reason an admin may give for a change.
pub const REASON_MAX_CHARS: usize = 500;

/// The reason an admin gave, trimmed, when it says something and is not too long.
pub fn check_reason(reason: &str) -> Result<&str, &'static str> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err("give a reason: it is kept in the audit trail");
    }
    if reason.chars().count() > REASON_MAX_CHARS || reason.chars().any(char::is_control) {
        return Err("a reason is one line of at most 500 characters");
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(role: Role) -> Target {
        Target { is_self: false, role, status: UserStatus::Active, source: UserSource::Local }
    }

    #[test]
    fn nobody_changes_their_own_role_or_deactivates_themselves() {
        let me = Target { is_self: true, ..target(Role::Admin) };
        assert_eq!(check_change(PeopleChange::SetRole(Role::Support), me, 3), Err(PeopleRefusal::OwnRole));
        assert_eq!(check_change(PeopleChange::SetRole(Role::Admin), me, 3), Err(PeopleRefusal::OwnRole));
        assert_eq!(check_change(PeopleChange::Deactivate, me, 3), Err(PeopleRefusal::OwnDeactivation));
        assert_eq!(check_change(PeopleChange::SignOutEverywhere, me, 3), Ok(()));
    }

    #[test]
    fn the_last_active_admin_stays_an_active_admin() {
        let admin = target(Role::Admin);
        assert_eq!(check_change(PeopleChange::Deactivate, admin, 1), Err(PeopleRefusal::LastAdmin));
        assert_eq!(
            check_change(PeopleChange::SetRole(Role::Manager), admin, 1),
            Err(PeopleRefusal::LastAdmin)
        );
        assert_eq!(check_change(PeopleChange::SetRole(Role::Admin), admin, 1), Ok(()));
        assert_eq!(check_change(PeopleChange::Deactivate, admin, 2), Ok(()));
        assert_eq!(check_change(PeopleChange::SetRole(Role::Auditor), admin, 2), Ok(()));
        let inactive = Target { status: UserStatus::Deactivated, ..admin };
        assert_eq!(check_change(PeopleChange::SetRole(Role::Support), inactive, 1), Ok(()));
        assert_eq!(check_change(PeopleChange::Deactivate, target(Role::Manager), 1), Ok(()));
    }

    #[test]
    fn a_company_accounts_role_comes_from_its_groups() {
        let sso = Target { source: UserSource::Sso, ..target(Role::Manager) };
        assert_eq!(
            check_change(PeopleChange::SetRole(Role::Support), sso, 2),
            Err(PeopleRefusal::RoleFromGroups)
        );
        assert_eq!(check_change(PeopleChange::Deactivate, sso, 2), Ok(()), "but it can be taken away");
    }

    #[test]
    fn a_password_is_reset_only_where_it_is_kept() {
        let sso = Target { source: UserSource::Sso, ..target(Role::Manager) };
        assert_eq!(check_change(PeopleChange::ResetPassword, sso, 1), Err(PeopleRefusal::PasswordElsewhere));
        let gone = Target { status: UserStatus::Deactivated, ..target(Role::Manager) };
        assert_eq!(check_change(PeopleChange::ResetPassword, gone, 1), Err(PeopleRefusal::Deactivated));
        assert_eq!(check_change(PeopleChange::ResetPassword, target(Role::Manager), 1), Ok(()));
    }

    #[test]
    fn two_factor_is_reset_only_where_it_is_kept() {
        let sso = Target { source: UserSource::Sso, ..target(Role::Manager) };
        assert_eq!(
            check_change(PeopleChange::ResetTwoFactor, sso, 1),
            Err(PeopleRefusal::TwoFactorElsewhere)
        );
        assert_eq!(check_change(PeopleChange::ResetTwoFactor, target(Role::Manager), 1), Ok(()));
        let me = Target { is_self: true, ..target(Role::Admin) };
        assert_eq!(
            check_change(PeopleChange::ResetTwoFactor, me, 1),
            Ok(()),
            "an admin who lost their phone, from the command line"
        );
    }

    #[test]
    fn a_reason_is_one_line_that_says_something() {
        assert_eq!(check_reason("  left the company "), Ok("left the company"));
        assert!(check_reason("   ").is_err());
        assert!(check_reason("a\nb").is_err());
        assert!(check_reason(&"x".repeat(501)).is_err());
        assert!(check_reason(&"字".repeat(500)).is_ok());
    }

    #[test]
    fn statuses_and_sources_read_back_what_they_write() {
        for status in [UserStatus::Active, UserStatus::Deactivated] {
            assert_eq!(UserStatus::parse(status.as_str()), Some(status));
        }
        for source in [UserSource::Local, UserSource::Sso] {
            assert_eq!(UserSource::parse(source.as_str()), Some(source));
        }
        assert_eq!(UserStatus::parse("gone"), None);
    }
}
