//! The single sign-on section of the sign-in and access page: the URLs to register at the identity provider, and a form
//! with the provider's settings (issuer, client, the button's name, the groups claim, group → role,
//! allowed and sign-in domains, SSO only with its break-glass admin), saved only once the provider
//! answers; and a form to remove it. Only admins see it; the server checks the role again for each
//! form.

use leptos::prelude::*;

use crate::console::language::current_language;
use crate::console::sso::{sso_settings, RemoveSsoSettings, SetSsoSettings};
use crate::t;
use crate::ui::components::widgets::{textarea_text, ErrorPanel, ViewerResource};

#[component]
pub fn SingleSignOn() -> impl IntoView {
    let language = current_language();
    let save = ServerAction::<SetSsoSettings>::new();
    let remove = ServerAction::<RemoveSsoSettings>::new();
    let settings = Resource::new(|| (), |_| sso_settings());
    let viewer = expect_context::<ViewerResource>();
    view! {
        <section class="panel" data-testid="single-sign-on">
            <h2>{t!(language, "sso-admin-heading")}</h2>
            <p class="muted small">{t!(language, "sso-admin-intro")}</p>
            <Transition>
                {move || Suspend::new(async move {
                    let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                    match settings.await {
                        Ok(current) => {
                            let remove_csrf = csrf.clone();
                            let secret_hint = (!current.secret_last4.is_empty())
                                .then(|| t!(language, "sso-admin-client-secret-kept", last4 = current.secret_last4.clone()));
                            view! {
                                {(!current.configured).then(|| view! { <p data-testid="sso-not-set">{t!(language, "sso-admin-not-set")}</p> })}
                                <dl class="facts">
                                    <div class="fact-wide"><dt>{t!(language, "sso-admin-redirect")}</dt>
                                        <dd class="mono" data-testid="sso-redirect-uri">{current.redirect_uri.clone()}</dd></div>
                                    <div class="fact-wide"><dt>{t!(language, "sso-admin-backchannel")}</dt>
                                        <dd class="mono" data-testid="sso-backchannel-uri">{current.backchannel_logout_uri.clone()}</dd></div>
                                </dl>
                                <ActionForm action=save attr:class="stack" attr:data-answer-to="sso-result" attr:data-testid="sso-form">
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <label>{t!(language, "sso-admin-issuer")}
                                        <input type="url" name="issuer" required value=current.issuer.clone() placeholder="https://accounts.google.com"/>
                                    </label>
                                    <label>{t!(language, "sso-admin-client-id")}
                                        <input type="text" name="client_id" required value=current.client_id.clone()/>
                                    </label>
                                    <label>{t!(language, "sso-admin-client-secret")}
                                        <input type="password" name="client_secret" autocomplete="off" required=!current.configured/>
                                        {secret_hint.map(|hint| view! { <span class="field-hint">{hint}</span> })}
                                    </label>
                                    <label>{t!(language, "sso-admin-display-name")}
                                        <input type="text" name="display_name" required value=current.display_name.clone() placeholder="Okta"/>
                                    </label>
                                    <label>{t!(language, "sso-admin-groups-claim")}
                                        <input type="text" name="groups_claim" value=current.groups_claim.clone()/>
                                    </label>
                                    <label>{t!(language, "sso-admin-group-roles")}
                                        <textarea name="group_roles" rows="4" aria-describedby="sso-group-roles-hint"
                                            placeholder="refund-managers = manager">{textarea_text(&current.group_roles)}</textarea>
                                        <span class="field-hint" id="sso-group-roles-hint">{t!(language, "sso-admin-group-roles-hint")}</span>
                                    </label>
                                    <label>{t!(language, "sso-admin-allowed-domains")}
                                        <input type="text" name="allowed_domains" value=current.allowed_domains.clone() aria-describedby="sso-allowed-hint"/>
                                        <span class="field-hint" id="sso-allowed-hint">{t!(language, "sso-admin-allowed-domains-hint")}</span>
                                    </label>
                                    <label>{t!(language, "sso-admin-sign-in-domains")}
                                        <input type="text" name="sign_in_domains" value=current.sign_in_domains.clone() aria-describedby="sso-domains-hint"/>
                                        <span class="field-hint" id="sso-domains-hint">{t!(language, "sso-admin-sign-in-domains-hint")}</span>
                                    </label>
                                    <label class="check-line">
                                        <input type="checkbox" name="sso_only" value="on" checked=current.sso_only/>
                                        {t!(language, "sso-admin-sso-only")}
                                    </label>
                                    <label>{t!(language, "sso-admin-break-glass")}
                                        <input type="text" name="break_glass_user" value=current.break_glass_user.clone()/>
                                    </label>
                                    <div class="filter-actions"><button type="submit" class="button">{t!(language, "sso-admin-save")}</button></div>
                                </ActionForm>
                                {current.configured.then(|| view! {
                                    <ActionForm action=remove attr:class="stack sso-remove" attr:data-answer-to="sso-result" attr:data-testid="sso-remove">
                                        <input type="hidden" name="csrf" value=remove_csrf/>
                                        <label class="check-line">
                                            <input type="checkbox" name="confirmed" value="yes" required/>
                                            {t!(language, "sso-admin-remove-confirm")}
                                        </label>
                                        <div class="filter-actions"><button type="submit" class="button button-quiet">{t!(language, "sso-admin-remove")}</button></div>
                                    </ActionForm>
                                })}
                            }.into_any()
                        }
                        Err(error) => view! { <ErrorPanel error/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="action-result" role="status" id="sso-result" data-testid="sso-result"></p>
        </section>
    }
}
