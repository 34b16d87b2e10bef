# 兩步驟登入：個人帳戶頁、登入的第二步、人員頁的欄位與重設、登入與存取頁的租戶開關。

account-title = 你的帳戶
account-who = 以 { $name } 身分登入租戶 { $tenant }。
error-two-factor-first = 你的租戶要求你的角色使用兩步驟登入。請先在「你的帳戶」設定；設定完成前無法開啟其他頁面。
two-factor-go-to-account = 設定兩步驟登入
two-factor-heading = 兩步驟登入
two-factor-intro = 輸入密碼後，主控台還會要求手機驗證器 App（Google Authenticator、Microsoft Authenticator、1Password 等）顯示的六位數驗證碼。即使有人得知你的密碼，也無法登入。
two-factor-start = 設定兩步驟登入
two-factor-scan = 用驗證器 App 掃描這個 QR 碼。
two-factor-qr-label = 供驗證器 App 掃描的 QR 碼
two-factor-type-secret = 或在 App 中輸入這組金鑰：
two-factor-first-code = App 目前顯示的六位數驗證碼
two-factor-confirm = 開啟
two-factor-recovery-once = 兩步驟登入已開啟。這十組復原碼在你沒有手機時各可使用一次。請現在妥善保存：它們只會顯示這一次。
two-factor-on = { $count ->
   *[other] 你還有 { $count } 組未使用的復原碼。
}
two-factor-state-on = 已開啟
two-factor-state-off = 未開啟
two-factor-code = App 的驗證碼或一組復原碼
two-factor-code-hint = 驗證器 App 的六位數驗證碼；沒有手機時，輸入一組復原碼。
two-factor-turn-off = 關閉兩步驟登入
two-factor-turned-off = 兩步驟登入已關閉。現在只需密碼即可登入。
two-factor-must-enrol = 你的租戶要求主管與管理員使用兩步驟登入。請在這裡設定；開啟後即可使用其他頁面。
two-factor-no-key = 這台伺服器沒有設定 OPLEDGER_SECRET_KEY，無法保存兩步驟登入的金鑰。請伺服器管理者設定一把（openssl rand -hex 32）並重新啟動。
two-factor-refused-sso = 你以公司帳戶登入：第二道驗證由公司的身分提供者負責。
two-factor-already-on = 兩步驟登入已經開啟。
two-factor-not-on = 兩步驟登入尚未開啟。
two-factor-not-started = 請重新開始設定：沒有等待第一組驗證碼的金鑰。
two-factor-wrong-code = 驗證碼不正確，或已經使用過。請輸入 App 目前顯示的驗證碼，或一組未使用的復原碼。
two-factor-required-stays = 你的租戶要求你的角色使用兩步驟登入，因此無法關閉。遺失手機時，管理員可以為你重設。
two-factor-step-title = 兩步驟登入
two-factor-step-for = { $name } 的密碼正確。請輸入驗證器 App 的驗證碼。
two-factor-step-expired = 這次登入等待驗證碼超過五分鐘，或尚未開始。請重新登入。
two-factor-verify = 登入
two-factor-column = 兩步驟登入
two-factor-by-provider = 由身分提供者負責
two-factor-do-reset = 重設兩步驟登入（遺失手機）
two-factor-reset-done = { $name } 的兩步驟登入已關閉，復原碼也已失效。{ $sessions ->
    [0] 對方沒有開啟中的工作階段。
   *[other] 對方的 { $sessions } 個工作階段已結束。
}下次登入後需重新設定。
two-factor-requirement-heading = 兩步驟登入
two-factor-required-now-on = 主管與管理員必須使用兩步驟登入。
two-factor-required-now-off = 每個人自行決定是否使用兩步驟登入。
two-factor-requirement-hint = 開啟要求後，未設定的主管或管理員以密碼登入後只能進行設定。以公司帳戶登入的人不受影響：由其身分提供者要求第二道驗證。
two-factor-require-on = 要求主管與管理員使用
two-factor-require-off = 不再要求
two-factor-required-on = 主管與管理員現在必須使用兩步驟登入。
two-factor-required-off = 已不再要求兩步驟登入。
two-factor-switch-unknown = 開關只能是開或關。
