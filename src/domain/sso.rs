//! The rules of signing in through a tenant's identity provider, apart from any I/O: reading the
//! table of group → role an admin writes, the role a person's groups give them (the highest when
//! several do), reading the groups claim (a list of strings; a string alone is refused), whether an
//! e-mail's domain is allowed, reading the sign-in domains, and what a person typed on the sign-in
//! page (an e-mail, a domain or a tenant's name).

use serde::{Deserialize, Serialize};

use super::policy::Role;

/// The claim that carries groups when the admin names none.
pub const DEFAULT_GROUPS_CLAIM: &str = "groups";

/// One line of the table of group → role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRole {
    pub group: String,
    pub role: Role,
}

/// How much a role may do, to choose the highest of several: admin, then manager, support, auditor.
pub fn rank(role: Role) -> u8 {
    match role {
        Role::Auditor => 0,
        Role::Support => 1,
        Role::Manager => 2,
        Role::Admin => 3,
    }
}

/// Reads the table of group → role, one `group = role` a line (`:` works too; blank lines and
/// lines starting with `#` are skipped). A role that does not exist, a line without both sides,
/// or a group named twice is refused with a sentence that names the line.
pub fn parse_group_roles(text: &str) -> Result<Vec<GroupRole>, String> {
    let mut table: Vec<GroupRole> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, line)| (i + 1, line.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((group, role)) = line.rsplit_once('=').or_else(|| line.rsplit_once(':')) else {
            return Err(format!(
                "Line {number} ({line:?}) is not \"group = role\", for example \"refund-managers = manager\"."
            ));
        };
        let (group, role_name) = (group.trim(), role.trim());
        if group.is_empty() {
            return Err(format!("Line {number} ({line:?}) names no group."));
        }
        let Some(role) = Role::parse(&role_name.to_lowercase()) else {
            return Err(format!(
                "Line {number}: {role_name:?} is not a role; the roles are support, manager, auditor and admin."
            ));
        };
        if table.iter().any(|known| known.group == group) {
            return Err(format!("Line {number}: the group {group:?} is named twice."));
        }
        table.push(GroupRole { group: group.to_owned(), role });
    }
    Ok(table)
}

/// The table written back as lines, the way [`parse_group_roles`] reads it.
pub fn group_roles_text(table: &[GroupRole]) -> String {
    table.iter().map(|line| format!("{} = {}", line.group, line.role.as_str())).collect::<Vec<_>>().join("\n")
}

/// The role `groups` give: the highest of those the table maps them to; `None` when none maps.
pub fn role_for_groups(table: &[GroupRole], groups: &[String]) -> Option<Role> {
    table
        .iter()
        .filter(|line| groups.iter().any(|group| *group == line.group))
        .map(|line| line.role)
        .max_by_key(|role| rank(*role))
}

/// Why the groups claim of an ID token cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupsProblem {
    /// The claim is a single string, not a list (a provider set up to send one value).
    NotAList,
    /// The list holds something other than strings.
    NotStrings,
}

/// The groups in a claim's JSON value: absent means none; a list of strings is read; anything else
/// is refused.
pub fn groups_from_claim(value: Option<&serde_json::Value>) -> Result<Vec<String>, GroupsProblem> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or(GroupsProblem::NotStrings))
            .collect(),
        Some(_) => Err(GroupsProblem::NotAList),
    }
}

/// A domain as stored: trimmed, lowercase, without a leading `@`; `None` unless it looks like a
/// host name with a dot (letters, digits, `-` and `.`).
pub fn normalize_domain(text: &str) -> Option<String> {
    let domain = text.trim().trim_start_matches('@').trim_end_matches('.').to_lowercase();
    let plausible = domain.contains('.')
        && domain.len() <= 253
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    plausible.then_some(domain)
}

/// Reads a list of domains separated by commas, spaces or lines; refuses the first that is not one.
pub fn parse_domains(text: &str) -> Result<Vec<String>, String> {
    let mut domains: Vec<String> = Vec::new();
    for item in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|item| !item.trim().is_empty()) {
        let domain = normalize_domain(item)
            .ok_or_else(|| format!("{:?} is not a domain such as acme.example.", item.trim()))?;
        if !domains.contains(&domain) {
            domains.push(domain);
        }
    }
    Ok(domains)
}

/// The domain of an e-mail address, lowercase; `None` when it has none.
pub fn email_domain(email: &str) -> Option<String> {
    let (local, domain) = email.trim().rsplit_once('@')?;
    if local.is_empty() {
        return None;
    }
    normalize_domain(domain)
}

/// Whether `email` may sign in where `allowed` domains are allowed (none listed: every domain).
pub fn email_allowed(email: &str, allowed: &[String]) -> bool {
    allowed.is_empty() || email_domain(email).is_some_and(|domain| allowed.contains(&domain))
}

/// What a person typed to find their tenant on the sign-in page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TenantHint {
    /// An e-mail address's domain, or a domain typed alone.
    Domain(String),
    /// A tenant's name.
    Name(String),
}

/// Reads what a person typed: an e-mail gives its domain, a name with a dot a domain, anything
/// else a tenant's name; `None` when nothing was typed.
pub fn tenant_hint(typed: &str) -> Option<TenantHint> {
    let typed = typed.trim();
    if typed.is_empty() {
        return None;
    }
    if typed.contains('@') {
        return email_domain(typed).map(TenantHint::Domain);
    }
    if typed.contains('.') {
        if let Some(domain) = normalize_domain(typed) {
            return Some(TenantHint::Domain(domain));
        }
    }
    Some(TenantHint::Name(typed.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_groups_and_roles_and_refuses_an_unknown_role() {
        let table = parse_group_roles(
            "# who does what\nrefund-managers = manager\nops: support\n\nit-admins = Admin\n",
        )
        .unwrap();
        assert_eq!(
            table,
            vec![
                GroupRole { group: "refund-managers".into(), role: Role::Manager },
                GroupRole { group: "ops".into(), role: Role::Support },
                GroupRole { group: "it-admins".into(), role: Role::Admin },
            ]
        );
        assert_eq!(parse_group_roles(&group_roles_text(&table)).unwrap(), table);
        let refused = parse_group_roles("ops = superuser").unwrap_err();
        assert!(refused.contains("\"superuser\" is not a role"), "{refused}");
        assert!(parse_group_roles("ops").unwrap_err().contains("Line 1"));
        assert!(parse_group_roles("= manager").is_err());
        assert!(parse_group_roles("ops = support\nops = manager").unwrap_err().contains("twice"));
        assert_eq!(parse_group_roles("").unwrap(), vec![]);
    }

    #[test]
    fn several_groups_give_the_highest_role_and_no_mapped_group_gives_none() {
        let table =
            parse_group_roles("auditors = auditor\nops = support\nmanagers = manager\nadmins = admin")
                .unwrap();
        let groups = |names: &[&str]| names.iter().map(|name| name.to_string()).collect::<Vec<_>>();
        assert_eq!(role_for_groups(&table, &groups(&["ops", "managers"])), Some(Role::Manager));
        assert_eq!(role_for_groups(&table, &groups(&["auditors", "ops"])), Some(Role::Support));
        assert_eq!(role_for_groups(&table, &groups(&["admins", "auditors"])), Some(Role::Admin));
        assert_eq!(role_for_groups(&table, &groups(&["everyone"])), None);
        assert_eq!(role_for_groups(&table, &[]), None);
    }

    #[test]
    fn the_groups_claim_is_a_list_of_strings() {
        use serde_json::json;
        assert_eq!(groups_from_claim(Some(&json!(["a", "b"]))).unwrap(), vec!["a", "b"]);
        assert_eq!(groups_from_claim(None).unwrap(), Vec::<String>::new());
        assert_eq!(groups_from_claim(Some(&json!("managers"))), Err(GroupsProblem::NotAList));
        assert_eq!(groups_from_claim(Some(&json!([1, 2]))), Err(GroupsProblem::NotStrings));
        assert_eq!(groups_from_claim(Some(&json!({"a": 1}))), Err(GroupsProblem::NotAList));
    }

    #[test]
    fn domains_and_emails() {
        assert_eq!(
            parse_domains("Acme.example, @shop.acme.example\nacme.example").unwrap(),
            vec!["acme.example", "shop.acme.example"]
        );
        assert!(parse_domains("acme").unwrap_err().contains("\"acme\""));
        assert!(parse_domains("bad_domain.example").is_err());
        let allowed = vec!["acme.example".to_owned()];
        assert!(email_allowed("Ann@ACME.example", &allowed));
        assert!(!email_allowed("ann@evil.example", &allowed));
        assert!(!email_allowed("ann@acme.example.evil.example", &allowed));
        assert!(!email_allowed("not an address", &allowed));
        assert!(email_allowed("anyone@anywhere.example", &[]));
    }

    #[test]
    fn what_a_person_types_names_a_domain_or_a_tenant() {
        assert_eq!(tenant_hint(" ann@Acme.example "), Some(TenantHint::Domain("acme.example".into())));
        assert_eq!(tenant_hint("acme.example"), Some(TenantHint::Domain("acme.example".into())));
        assert_eq!(tenant_hint("Acme"), Some(TenantHint::Name("acme".into())));
        assert_eq!(tenant_hint("   "), None);
        assert_eq!(tenant_hint("ann@"), None);
    }
}
