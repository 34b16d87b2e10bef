# The sign-in page, in the language the browser asks for.

login-title = Sign in
login-heading = Sign in to opledger
login-problem-invalid = That name and password do not match. Check both (and the tenant, if your name is used in more than one) and try again.
login-problem-expired = The sign-in form had expired. It has been renewed; please sign in again.
login-signed-out = You are signed out.
login-name = Name
login-password = Password
login-tenant = Tenant
login-tenant-optional = (optional)
login-tenant-hint = Needed only when more than one tenant uses your sign-in.
login-submit = Sign in
login-accounts-hint = Accounts are made by an admin, or with { $command }.
