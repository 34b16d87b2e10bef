//! Signing in through a tenant's identity provider, on the ledger's side: an admin's settings
//! (checked before anything is saved: the issuer through the egress policy and its discovery, the
//! table of group → role, the domains; the client secret sealed like provider secrets and never in
//! the audit trail), finding a tenant from what a person typed, the sign-ins on their way through
//! the provider, and what a sign-in does to the person (created on first sign-in, their role
//! applied again from their groups every time, refused when deactivated or without a role), and
//! whether a local password may still sign in to a tenant that signs in through its provider only.

use serde_json::json;

use super::secrets::SecretKeyError;
use super::{Ledger, LedgerError};
use crate::domain::audit::AuditEntry;
use crate::domain::connection::last_four;
use crate::domain::ids::{Actor, TenantId};
use crate::domain::language::Language;
use crate::domain::policy::Role;
use crate::domain::sso::{
    group_roles_text, groups_from_claim, parse_domains, parse_group_roles, role_for_groups, tenant_hint,
    GroupsProblem, TenantHint, DEFAULT_GROUPS_CLAIM,
};
use crate::server::clock::now;
use crate::server::providers::oidc::{self, RelyingParty, SignedInPerson};
use crate::server::store::sso::{NewSsoUser, SsoFlowRecord, SsoSettingsRecord};
use crate::server::store::StoreError;

/// The name the client secret is sealed under (bound to its tenant too).
const SEALED_AS: &str = "sso#client_secret";

/// What an admin sets, from the console or the command line.
#[derive(Clone, Default)]
pub struct SsoSettingsInput {
    pub issuer: String,
    pub client_id: String,
    /// `None` (or empty) keeps the secret already stored.
    pub client_secret: Option<String>,
    pub display_name: String,
    /// Empty for [`DEFAULT_GROUPS_CLAIM`].
    pub groups_claim: String,
    /// One `group = role` a line.
    pub group_roles: String,
    /// Domains separated by commas, spaces or lines; empty allows every domain.
    pub allowed_domains: String,
    pub sso_only: bool,
    /// The one admin who still signs in with a password when `sso_only`.
    pub break_glass_user: String,
    /// The domains a person types (their e-mail's) to find the tenant.
    pub sign_in_domains: String,
}

impl std::fmt::Debug for SsoSettingsInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSettingsInput")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("display_name", &self.display_name)
            .finish_non_exhaustive()
    }
}

/// Who signed in through the provider, as the console's session names them.
#[derive(Debug, Clone)]
pub struct SsoPerson {
    pub user_id: String,
    pub name: String,
    pub role: Role,
    pub language: Option<Language>,
}

/// Why a person who proved who they are at the provider may not sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SsoRefusal {
    /// The provider sent no e-mail address.
    NoEmail,
    /// The provider says the e-mail address is not verified.
    EmailUnverified,
    /// The e-mail's domain is not one the tenant allows.
    DomainNotAllowed(String),
    /// The groups claim is a string, or holds something other than strings.
    GroupsNotAList(String),
    /// No group of theirs gives a role; `admins` are whom to ask.
    NoRole { admins: Vec<String> },
    /// An admin deactivated them.
    Deactivated,
    /// A user of this name exists already in the tenant, not from the provider.
    NameTaken(String),
}

fn invalid(text: impl Into<String>) -> LedgerError {
    LedgerError::Invalid(text.into())
}

impl Ledger {
    /// Sets `tenant`'s identity provider (replacing earlier settings) once every part is checked:
    /// the issuer is allowed by the egress policy and answers with its OpenID configuration and
    /// keys, the table names only roles that exist, the domains are domains. The client secret is
    /// sealed; the audit entry names everything else and the secret's last four characters.
    pub async fn set_sso_settings(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        input: SsoSettingsInput,
    ) -> Result<(), LedgerError> {
        let issuer = input.issuer.trim().trim_end_matches('/').to_owned();
        if issuer.is_empty() {
            return Err(invalid("The issuer URL is empty: give the provider's issuer, for example https://accounts.google.com."));
        }
        let client_id = input.client_id.trim().to_owned();
        if client_id.is_empty() {
            return Err(invalid(
                "The client id is empty: give the id of the application registered at the provider.",
            ));
        }
        let group_roles =
            parse_group_roles(&input.group_roles).map_err(|why| invalid(format!("Group → role: {why}")))?;
        let allowed_domains = parse_domains(&input.allowed_domains)
            .map_err(|why| invalid(format!("Allowed e-mail domains: {why}")))?;
        let sign_in_domains = parse_domains(&input.sign_in_domains)
            .map_err(|why| invalid(format!("Sign-in domains: {why}")))?;
        let groups_claim = match input.groups_claim.trim() {
            "" => DEFAULT_GROUPS_CLAIM.to_owned(),
            claim if claim.len() <= 64 && claim.chars().all(|c| c.is_ascii_graphic()) => claim.to_owned(),
            claim => return Err(invalid(format!("{claim:?} is not a claim name."))),
        };
        let display_name = match input.display_name.trim() {
            "" => {
                return Err(invalid("The display name is empty: it is the button's \"Sign in with <name>\"."))
            }
            name if name.chars().count() > 60 => {
                return Err(invalid("The display name is longer than 60 characters."))
            }
            name => name.to_owned(),
        };
        let break_glass_user = Some(input.break_glass_user.trim().to_owned()).filter(|name| !name.is_empty());
        if input.sso_only && break_glass_user.is_none() {
            return Err(invalid(
                "SSO only needs one named break-glass admin, who can still sign in with a password when the provider is down.",
            ));
        }
        if let Some(name) = &break_glass_user {
            let users = self.store.users_named(name, Some(tenant)).await?;
            if !users.iter().any(|user| user.role == Role::Admin) {
                return Err(invalid(format!(
                    "The break-glass admin {name:?} is not an admin of this tenant."
                )));
            }
        }
        let secrets = self.secrets.as_ref().ok_or_else(|| invalid(SecretKeyError::Missing.to_string()))?;
        let stored = self.store.sso_settings(tenant).await?;
        let (sealed_client_secret, secret_last4) =
            match input.client_secret.as_deref().map(str::trim).filter(|secret| !secret.is_empty()) {
                Some(secret) => (secrets.seal(tenant, SEALED_AS, secret), last_four(secret)),
                None => match stored {
                    Some(stored) => (stored.sealed_client_secret, stored.secret_last4),
                    None => return Err(invalid("The client secret is empty.")),
                },
            };
        oidc::discover(&self.egress, &issuer, true).await.map_err(|error| match error {
            oidc::OidcError::Refused(why) => {
                invalid(format!("The issuer URL is refused: {why}. Nothing was saved."))
            }
            other => invalid(format!(
                "The issuer does not answer as an OpenID provider: {other}. Nothing was saved."
            )),
        })?;
        let record = SsoSettingsRecord {
            tenant: tenant.clone(),
            issuer,
            client_id,
            sealed_client_secret,
            secret_last4,
            display_name,
            groups_claim,
            group_roles,
            allowed_domains,
            sso_only: input.sso_only,
            break_glass_user,
            sign_in_domains,
            updated_by: actor.name.clone(),
            updated_at: now(),
        };
        let evidence = json!({
            "issuer": record.issuer,
            "client_id": record.client_id,
            "client_secret": format!("…{}", record.secret_last4),
            "display_name": record.display_name,
            "groups_claim": record.groups_claim,
            "group_roles": group_roles_text(&record.group_roles),
            "allowed_domains": record.allowed_domains,
            "sso_only": record.sso_only,
            "break_glass_user": record.break_glass_user,
            "sign_in_domains": record.sign_in_domains,
        });
        let audit = Self::action_entry(tenant, actor, "set_sso_settings", evidence);
        self.store.set_sso_settings(record, audit).await.map_err(|error| match error {
            StoreError::Conflict(why) => invalid(format!("Sign-in domains: {why}. Nothing was saved.")),
            other => LedgerError::Store(other),
        })
    }

    /// `tenant`'s identity provider settings, if it has any.
    pub async fn sso_settings(&self, tenant: &TenantId) -> Result<Option<SsoSettingsRecord>, StoreError> {
        self.store.sso_settings(tenant).await
    }

    /// Removes `tenant`'s identity provider: its people sign in with passwords again (those who
    /// came from the provider have none until an admin resets it). `NotFound` when it has none.
    pub async fn remove_sso_settings(&self, tenant: &TenantId, actor: &Actor) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "remove_sso_settings", json!({}));
        self.store.remove_sso_settings(tenant, audit).await
    }

    /// The client `settings` describe, its secret opened, sending people back to `redirect_uri`.
    pub fn relying_party(
        &self,
        settings: &SsoSettingsRecord,
        redirect_uri: &str,
    ) -> Result<RelyingParty, LedgerError> {
        let secrets = self.secrets.as_ref().ok_or_else(|| invalid(SecretKeyError::Missing.to_string()))?;
        let client_secret = secrets
            .open(&settings.tenant, SEALED_AS, &settings.sealed_client_secret)
            .map_err(|error| invalid(error.to_string()))?;
        Ok(RelyingParty {
            issuer: settings.issuer.clone(),
            client_id: settings.client_id.clone(),
            client_secret,
            redirect_uri: redirect_uri.to_owned(),
        })
    }

    /// The tenant a person means by what they typed on the sign-in page (their e-mail, a sign-in
    /// domain, or the tenant's name), when that tenant signs in through a provider.
    pub async fn sso_tenant_for(&self, typed: &str) -> Result<Option<SsoSettingsRecord>, StoreError> {
        let tenant = match tenant_hint(typed) {
            None => return Ok(None),
            Some(TenantHint::Domain(domain)) => self.store.sso_tenant_of_domain(&domain).await?,
            Some(TenantHint::Name(name)) => TenantId::parse(&name).ok(),
        };
        match tenant {
            Some(tenant) => self.store.sso_settings(&tenant).await,
            None => Ok(None),
        }
    }

    /// Whether any tenant signs in through an identity provider (the sign-in page offers it then).
    pub async fn sso_offered(&self) -> Result<bool, StoreError> {
        self.store.any_sso_settings().await
    }

    /// Keeps a sign-in on its way to the provider.
    pub async fn start_sso_flow(&self, flow: SsoFlowRecord) -> Result<(), StoreError> {
        self.store.start_sso_flow(flow, now()).await
    }

    /// Takes the sign-in stored under `id_hash`, once, unless it expired.
    pub async fn take_sso_flow(&self, id_hash: &str) -> Result<Option<SsoFlowRecord>, StoreError> {
        self.store.take_sso_flow(id_hash, now()).await
    }

    /// What signing in as `person` (checked by `settings`' provider) does: the groups claim read
    /// and mapped to a role (the highest), the e-mail's domain checked; then the person is
    /// created on first sign-in, or found by issuer and subject within the tenant and given the
    /// role their groups give now. Refused when deactivated or when no group gives a role.
    pub async fn sso_sign_in(
        &self,
        settings: &SsoSettingsRecord,
        person: &SignedInPerson,
    ) -> Result<Result<SsoPerson, SsoRefusal>, StoreError> {
        let tenant = &settings.tenant;
        let Some(email) = person.email.clone().filter(|email| !email.trim().is_empty()) else {
            return Ok(Err(SsoRefusal::NoEmail));
        };
        if person.email_unverified {
            return Ok(Err(SsoRefusal::EmailUnverified));
        }
        if !crate::domain::sso::email_allowed(&email, &settings.allowed_domains) {
            return Ok(Err(SsoRefusal::DomainNotAllowed(email)));
        }
        let groups = match groups_from_claim(person.claims.get(&settings.groups_claim)) {
            Ok(groups) => groups,
            Err(GroupsProblem::NotAList | GroupsProblem::NotStrings) => {
                return Ok(Err(SsoRefusal::GroupsNotAList(settings.groups_claim.clone())))
            }
        };
        let known = self.store.sso_user(tenant, &person.subject).await?;
        if known.as_ref().is_some_and(|user| user.status != "active") {
            return Ok(Err(SsoRefusal::Deactivated));
        }
        let Some(role) = role_for_groups(&settings.group_roles, &groups) else {
            let admins = self.store.tenant_admin_names(tenant).await?;
            tracing::info!(%tenant, user = %email, ?groups, "a sign-in through the provider gives no role");
            return Ok(Err(SsoRefusal::NoRole { admins }));
        };
        // The provider is who decides: its audit entries name the person, in the role "identity_provider".
        let entry = |action: &str, evidence| {
            AuditEntry::action(now(), tenant.as_str(), &email, "identity_provider", action, evidence)
        };
        match known {
            None => {
                let id = uuid::Uuid::new_v4().simple().to_string();
                let evidence = json!({"name": email, "role": role.as_str(), "groups": groups, "issuer": settings.issuer});
                let audit = entry("sso_user_created", evidence);
                let user = NewSsoUser {
                    id: id.clone(),
                    tenant: tenant.clone(),
                    name: email.clone(),
                    role,
                    subject: person.subject.clone(),
                    at: now(),
                };
                match self.store.create_sso_user(user, audit).await {
                    Ok(()) => Ok(Ok(SsoPerson { user_id: id, name: email, role, language: None })),
                    Err(StoreError::Conflict(_)) => Ok(Err(SsoRefusal::NameTaken(email))),
                    Err(other) => Err(other),
                }
            }
            Some(user) => {
                if user.role != role {
                    let evidence = json!({
                        "user_id": user.id, "name": user.name, "from": user.role.as_str(), "to": role.as_str(), "groups": groups
                    });
                    let audit = entry("sso_role_applied", evidence);
                    self.store.set_sso_user_role(tenant, &user.id, role, audit).await?;
                }
                Ok(Ok(SsoPerson { user_id: user.id, name: user.name, role, language: user.language }))
            }
        }
    }

    /// The tenant's user known to its provider as `subject` (issuer and subject), if any.
    pub async fn sso_user_id(&self, tenant: &TenantId, subject: &str) -> Result<Option<String>, StoreError> {
        Ok(self.store.sso_user(tenant, subject).await?.map(|user| user.id))
    }

    /// Whether the tenant's user `name` may sign in with a password: always, unless the tenant
    /// signs in through its provider only and `name` is not its break-glass admin.
    pub async fn local_password_allowed(&self, tenant: &TenantId, name: &str) -> Result<bool, StoreError> {
        Ok(match self.store.sso_settings(tenant).await? {
            Some(settings) if settings.sso_only => settings.break_glass_user.as_deref() == Some(name),
            _ => true,
        })
    }
}
