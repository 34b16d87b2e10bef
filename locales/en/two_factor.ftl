# Two-factor sign-in: a person's own account page, the second step of a sign-in, the people
# page's column and reset, and the tenant's switch on the sign-in and access page.

account-title = Your account
account-who = Signed in as { $name } in tenant { $tenant }.
error-two-factor-first = Your tenant requires two-factor sign-in for your role. Set it up on Your account first; until then nothing else opens.
two-factor-go-to-account = Set up two-factor sign-in
two-factor-heading = Two-factor sign-in
two-factor-intro = After your password, the console also asks for a six-digit code from an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password and others). Someone who learns your password still cannot sign in.
two-factor-start = Set up two-factor sign-in
two-factor-scan = Scan this QR code with your authenticator app.
two-factor-qr-label = QR code to scan with an authenticator app
two-factor-type-secret = Or type this key into the app:
two-factor-first-code = The six-digit code the app shows now
two-factor-confirm = Turn on
two-factor-recovery-once = Two-factor sign-in is on. These ten recovery codes each work once, when you do not have your phone. Keep them somewhere safe now: they are shown only this once.
two-factor-on = { $count ->
    [one] You have one unused recovery code.
   *[other] You have { $count } unused recovery codes.
}
two-factor-state-on = On
two-factor-state-off = Off
two-factor-code = Code from your app, or a recovery code
two-factor-code-hint = Six digits from your authenticator app; without your phone, one of your recovery codes.
two-factor-turn-off = Turn off two-factor sign-in
two-factor-turned-off = Two-factor sign-in is off. Your password alone signs you in again.
two-factor-must-enrol = Your tenant requires two-factor sign-in for managers and admins. Set it up here; every other page opens once it is on.
two-factor-no-key = This server has no OPLEDGER_SECRET_KEY, so it cannot keep a second factor's secret. Ask whoever runs the server to set one (openssl rand -hex 32) and restart it.
two-factor-refused-sso = You sign in with your company account: your company's identity provider asks for your second factor.
two-factor-already-on = Two-factor sign-in is on already.
two-factor-not-on = Two-factor sign-in is not on.
two-factor-not-started = Start the set-up again: no key is waiting for its first code.
two-factor-wrong-code = That code is not right, or it was used already. Type the code your app shows now, or an unused recovery code.
two-factor-required-stays = Your tenant requires two-factor sign-in for your role, so it stays on. An admin can reset it if you lose your phone.
two-factor-step-title = Two-factor sign-in
two-factor-step-for = Password right for { $name }. Now type the code from your authenticator app.
two-factor-step-expired = The sign-in waited more than five minutes for its code, or was not started. Sign in again.
two-factor-verify = Sign in
two-factor-column = Two-factor
two-factor-by-provider = By their provider
two-factor-do-reset = Reset two-factor sign-in (lost phone)
two-factor-reset-done = { $name }'s two-factor sign-in is off and their recovery codes no longer work. { $sessions ->
    [0] They had no open session.
    [one] Their open session ended.
   *[other] Their { $sessions } open sessions ended.
} They set it up again after their next sign-in.
two-factor-requirement-heading = Two-factor sign-in
two-factor-required-now-on = Managers and admins must sign in with two-factor sign-in.
two-factor-required-now-off = Two-factor sign-in is up to each person.
two-factor-requirement-hint = When it is required, a manager or admin without it can only set it up after signing in with their password. People who sign in with their company account are not affected: their provider asks for a second factor.
two-factor-require-on = Require it for managers and admins
two-factor-require-off = Stop requiring it
two-factor-required-on = Managers and admins now need two-factor sign-in.
two-factor-required-off = Two-factor sign-in is no longer required.
two-factor-switch-unknown = The switch is on or off.
