# 登录页，按浏览器请求的语言显示。

login-title = 登录
login-heading = 登录 opledger
login-problem-invalid = 用户名与密码不匹配。请检查两者（如果您的用户名在多个租户中使用，也请检查租户）后重试。
login-problem-expired = 登录表单已过期，已为您刷新，请重新登录。
login-signed-out = 您已退出登录。
login-name = 用户名
login-password = 密码
login-tenant = 租户
login-tenant-optional = （选填）
login-tenant-hint = 仅当您的登录名在多个租户中使用时才需要填写。
login-submit = 登录
login-accounts-hint = 账号由管理员创建，或使用 { $command } 命令创建。
