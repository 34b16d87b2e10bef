# 管理頁的導覽、人員頁、登入與存取頁，以及密碼重設連結開啟的頁面。

admin-nav-label = 管理頁面
admin-tab-people = 人員
admin-tab-access = 登入與存取
admin-tab-providers = 服務商帳戶
admin-tab-policy = 核准政策
admin-tab-webhooks = Webhook

people-intro = 所有登入此租戶主控台的人。停用的人無法登入；他們的工作階段會立即在每台伺服器上結束，而每筆稽核紀錄仍歸屬於他們。
people-status = 狀態
people-source = 登入方式
people-last-sign-in = 上次登入
people-change = 變更
people-status-active = 啟用中
people-status-deactivated = 已停用
people-source-local = 密碼
people-source-sso = 公司帳號
people-you = （你）
people-never = 從未
people-change-open = 變更…
people-change-of = 變更 { $name }
people-change-what = 要做什麼
people-do-role = 指派新角色
people-do-sign-out = 在所有裝置登出
people-do-reset = 產生密碼設定連結
people-do-deactivate = 停用
people-do-reactivate = 重新啟用
people-new-role = 新角色
people-reason = 原因（記入稽核紀錄）
people-reason-example = 例如：調到財務組
people-apply = 套用
people-change-unknown = 「{ $change }」不是主控台能對人員做的變更。
people-reason-needed = 請填寫一行、最多 500 字的原因：它會記入稽核紀錄。
people-refused-own-role = 你不能變更自己的角色，請另一位管理員處理。
people-refused-own-deactivation = 你不能停用自己，請另一位管理員處理。
people-refused-last-admin = 這是此租戶最後一位啟用中的管理員。請先讓另一個人成為管理員。
people-refused-password-elsewhere = 此人使用公司帳號登入，密碼由公司的身分提供者保管。
people-refused-deactivated = 此人已停用，請先重新啟用。
people-role-set = { $name } 現在是{ $role }。{ $sessions ->
    [0] 他沒有開啟中的工作階段。
   *[other] 他的 { $sessions } 個工作階段已結束；他需以新角色重新登入。
}
people-deactivated = { $name } 已停用，無法登入。{ $sessions ->
    [0] 他沒有開啟中的工作階段。
   *[other] 他的 { $sessions } 個工作階段已結束。
}
people-reactivated = { $name } 已重新啟用，可以登入。
people-signed-out = { $sessions ->
    [0] { $name } 沒有開啟中的工作階段。
   *[other] { $name } 的 { $sessions } 個工作階段已結束。
}
people-reset-made = 請私下把這個連結交給 { $name }：{ $link } 它可在 { $minutes } 分鐘內設定一次新密碼，只在此時顯示。

people-refused-role-from-groups = 此人的角色來自他在身分提供者的群組，每次登入都會重新讀取。請在那裡變更他的群組，或在這裡停用他。
people-refused-token-heir = API 權杖只能交給此租戶另一位啟用中的使用者。
people-tokens-revoked = { $count ->
    [0] 他沒有建立過 API 權杖。
   *[other] 他建立的 { $count } 個 API 權杖已撤銷。
}
people-tokens-reassigned = 他建立的 { $count } 個 API 權杖現在歸 { $heir }。
people-tokens-to = 他的 API 權杖交給
people-tokens-to-none = 沒有人：撤銷它們

access-sessions-heading = 主控台工作階段
access-sessions-lifetimes = 工作階段在 { $idle } 分鐘沒有請求後結束，且無論如何在登入 { $absolute } 小時後結束。
access-sessions-flags = 這些由伺服器啟動時設定：{ $idle } 與 { $max }。
access-leaving = 有人離職時，請在「人員」頁停用他：他的工作階段會立即在每台伺服器上結束，且無法再登入。

reset-title = 設定新密碼
reset-for = 給 { $name }。請輸入新密碼兩次。
reset-new-password = 新密碼（至少 10 個字元）
reset-new-password-again = 再輸入一次
reset-submit = 設定密碼
reset-hint = 此連結只能使用一次。舊密碼將失效，開啟中的工作階段會結束。
reset-problem-mismatch = 兩次輸入的密碼不同，請輸入相同的密碼。
reset-problem-weak = 密碼至少需要 10 個字元。
reset-link-dead = 此連結已失效：已使用、已過期，或從未產生。請向租戶的管理員索取新的連結。
reset-to-sign-in = 前往登入
login-password-set = 新密碼已設定，請用它登入。
