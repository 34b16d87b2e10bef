# 登入頁，依瀏覽器要求的語言顯示。

login-title = 登入
login-heading = 登入 opledger
login-problem-invalid = 名稱與密碼不符。請檢查兩者（若您的名稱在多個租戶中使用，也請檢查租戶）後再試一次。
login-problem-expired = 登入表單已過期，已為您更新，請重新登入。
login-signed-out = 您已登出。
login-name = 名稱
login-password = 密碼
login-tenant = 租戶
login-tenant-optional = （選填）
login-tenant-hint = 只有當您的登入名稱在多個租戶中使用時才需要填寫。
login-submit = 登入
login-accounts-hint = 帳號由管理員建立，或以 { $command } 指令建立。
