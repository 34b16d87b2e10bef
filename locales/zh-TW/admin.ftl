# 管理頁：使用者與其語言、顧客語言、核准政策、服務商帳戶、顧客 Email 範本與 Webhook；
# 以及一次性表單的拒絕訊息。

## 使用者

admin-users-heading = 此租戶的使用者
admin-user-name = 名稱
admin-user-role = 角色
admin-users-added = 新增時間
admin-user-language = 語言
admin-user-language-of = { $name } 的主控台語言
admin-users-language-hint = 使用者下次登入後才會看到新的主控台語言。「依瀏覽器設定」會採用其瀏覽器要求的語言。
admin-add-user-heading = 新增使用者
admin-add-user-password = 密碼（至少 10 個字元）
admin-add-user-submit = 新增使用者
admin-user-added = { $name } 現在能以{ $role }身分登入。
admin-user-added-in = { $name } 現在能以{ $role }身分登入，主控台語言為{ $language }。
admin-user-role-unknown = 沒有名為「{ $role }」的角色。
admin-user-name-invalid = 使用者名稱須為 1 到 64 個字元，只能使用英文字母、數字、「.」、「-」、「_」或「@」。
admin-user-password-weak = 密碼至少需要 { $min } 個字元。
admin-user-name-taken = 此租戶已有名為 { $name } 的使用者。
admin-user-not-found = 此租戶沒有名為 { $name } 的使用者
admin-user-language-saved = { $name } 下次登入起，主控台將以{ $language }顯示。
admin-user-language-browser = { $name } 下次登入起，主控台將依其瀏覽器要求的語言顯示。

## 語言

admin-languages-heading = 語言
admin-tenant-language = 顧客語言
admin-tenant-language-hint = 代理程式呼叫工具時若未指定 { $locale }，工具會以此語言告知顧客。
admin-tenant-language-save = 儲存語言
admin-tenant-language-saved = 呼叫未指定 locale 時，現在會以{ $language }告知顧客。
admin-language-choose = 請選擇語言。
admin-language-unknown = 「{ $tag }」不是主控台支援的語言：請選擇 English、繁體中文或简体中文。

## 核准政策

admin-policy-heading = 核准政策
admin-policy-intro = 從現在起登記、且符合規則的操作，會先等待主管核准才送出。金額門檻只適用於同一幣別的金額。
# 規則的文字。kind_scope 為 "any" 表示任何類型，provider_scope 為 "any" 表示任何服務商，
# amount_scope 為 "any" 表示任何金額。
admin-rule-sentence =
    { $kind_scope ->
        [any] 任何類型的操作
       *[one] { $kind } 操作
    }{ $provider_scope ->
        [any] {""}
       *[one] （服務商 { $provider }）
    }{ $amount_scope ->
        [any] {""}
       *[from] 金額達 { $threshold } 以上時
    }需經主管核准
admin-rule-added-by = （{ $name } 新增於 { $time }）
admin-rule-remove = 移除…
admin-rule-remove-consequence = 將移除規則「{ $rule }」：從現在起登記、原本會被此規則攔下的操作，將不經主管核准直接送出。
admin-rule-confirm-heading = 確認：移除此規則
admin-rule-confirm-yes = 是，移除
admin-rules-empty = 沒有規則：所有操作都不需核准即送出。請在下方新增規則。
admin-rule-kind = 類型
admin-rule-kind-choose = 請選擇…
admin-rule-kind-any = 任何類型
admin-rule-provider = 服務商
admin-rule-provider-any = 任何服務商
admin-rule-threshold = 起始金額（留空表示任何金額）
admin-rule-currency = 幣別
admin-rule-amount-hint = 以該幣別的主要單位填寫，小數點後為分：1000.00 或 1,000.00。
admin-rule-preview-button = 預覽
admin-rule-add = 新增規則
admin-rule-kind-missing = 請選擇類型，例如 { $kinds }。
admin-rule-kind-unknown = 沒有記錄過、工具也不會產生類型為「{ $kind }」的操作；請從 { $kinds } 中選擇。
admin-rule-provider-unknown = 沒有名為「{ $provider }」的服務商；請從 { $providers } 中選擇，或留空表示任何服務商。
admin-rule-amount-missing = 指定幣別時也需填寫金額，例如 1000.00。
admin-rule-currency-missing = 金額門檻需要指定幣別，例如 TWD。
admin-rule-currency-invalid = 幣別須為三個字母的 ISO 4217 代碼，例如「TWD」，收到的是「{ $code }」。
admin-rule-amount-invalid = 「{ $amount }」不是有效的 { $currency } 金額；請寫成 { $example } 的形式。
admin-rule-amount-invalid-comma = 「{ $amount }」不是有效的 { $currency } 金額；請寫成 { $example } 的形式。逗號只能用來分隔千位（1,000.00），分的部分請寫在小數點之後。
admin-rule-amount-too-large = 金額過大。
admin-rule-caught-none =
    目前還沒有記錄任何{ $kind_scope ->
        [any] 操作
       *[one] {" "}{ $kind } 操作
    }，因此至今不會攔下任何操作。
admin-rule-caught =
    最近 { $total } 筆{ $kind_scope ->
        [any] 操作
       *[one] {" "}{ $kind } 操作
    }中（自 { $since } 起），此規則會攔下 { $caught } 筆。
admin-rule-preview = 預覽，未儲存：{ $rule }。{ $caught }
admin-rule-added = 從現在起，{ $rule }。{ $caught }
admin-rule-removed = 規則已移除；從現在起登記的操作不再需要它的核准。
admin-rule-not-found = 沒有核准規則 { $id }

## 服務商帳戶

admin-accounts-heading = 服務商帳戶
admin-accounts-intro = 此租戶自己的帳戶：退款送往 { $stripe }、{ $adyen } 或 { $paypal }，商店訂單讀取自 { $orders }，售後單與取件送往 { $sandbox }，顧客電子郵件送往 { $email }（類型為 email 或 smtp，帳戶即寄件者），商店自有系統提供的任何服務（類型 http）也都送往這些帳戶。沒有帳戶時，只有營運者授予伺服器自有帳戶的租戶（{ $flag }）才能送出任何操作。基本 URL 必須是公開的 https 位址，除非營運者另有允許。密鑰儲存時即加密封存，之後不再顯示，只顯示最後四個字元。
admin-accounts-empty = 尚無自己的帳戶：請在下方新增。在此之前，除非營運者授予伺服器自有的帳戶，此租戶不會送出任何操作。
admin-accounts-provider = 服務商
admin-accounts-kind = 類型
admin-accounts-base-url = 基本 URL
admin-accounts-col-secret = 密鑰
admin-accounts-retention = 冪等鍵保留期間
admin-accounts-col-set = 最後設定
admin-accounts-col-webhooks = 服務商的 Webhook
admin-accounts-col-actions = 動作
admin-accounts-account-named = 帳戶
admin-accounts-webhook-own-secret = 綠界以這個連線的 HashKey 與 HashIV 簽署付款通知：把這個網址填為訂單的 ReturnURL（並設 NeedExtraPaidInfo=Y），每筆信用卡付款的 TradeNo 與 gwsr 就會保存下來供退款使用。
admin-accounts-webhook-secret-set = 已設定簽章密鑰：其事件會確定已受理操作的結果。
admin-accounts-webhook-secret-missing = 尚未設定簽章密鑰：設定之前，其事件一律拒收。
admin-accounts-save-secret = 儲存密鑰
admin-accounts-remove = 移除
admin-accounts-secret-key = 密鑰
admin-accounts-account = 帳戶
admin-accounts-account-placeholder = 商家帳戶或 client id
admin-accounts-retention-placeholder = 服務商的預設期間
admin-accounts-account-hint = Adyen 需填商家帳戶（merchant account），PayPal 需填 REST 應用程式的 client id（其 secret 即為密鑰），綠界需填 MerchantID（密鑰為廠商後台的 HashKey:HashIV:CreditCheckCode），LINE Pay 需填 Channel ID（密鑰為 Channel Secret），email 與 smtp 需填寄件者（Shop <support@shop.example>；smtp 的基本 URL 為 smtp://host:587 或 smtps://host:465）；Stripe 與其他服務商不需填寫。只有當帳戶合約與服務商的預設期間不同時，才需設定冪等鍵保留多久（7d、48h）：Stripe 為 24 小時，Adyen 為 31 天，PayPal 為 45 天。
admin-accounts-description = API 說明（用於 http 連線）
admin-accounts-description-hint = 適用於商店自有的系統（類型 http）：它提供的操作類型、每種操作如何以操作儲存的參數組成請求、它接受的冪等鍵標頭（若有），以及它的查詢方式（若有）。它支援哪些機制，決定了 opledger 如何處理遺失的回應；兩者皆不支援的系統，操作最多只送出一次。docs/any-downstream.md 中有範例。
admin-accounts-save = 儲存帳戶
admin-accounts-retention-per-kind = 依操作類型而定
admin-accounts-retention-window = { $window }（服務商的預設期間）
admin-serves-key-and-lookup = { $kind }：冪等鍵保留 { $window }，{ $after_5xx }，可查詢
admin-serves-key-only = { $kind }：冪等鍵保留 { $window }，{ $after_5xx }，無法查詢
admin-serves-lookup-only = { $kind }：無冪等鍵，可查詢
admin-serves-at-most-once = { $kind }：無冪等鍵、無法查詢：最多送出一次
admin-serves-5xx-same-key = 5xx 後重送只會再得到 5xx
admin-serves-5xx-retry = 5xx 後會以同一冪等鍵重送
admin-serves-5xx-unknown = 5xx 後不重送（不確定是否會重新處理）
admin-accounts-secret-hmac = HMAC 金鑰
admin-accounts-secret-webhook-id = Webhook ID
admin-accounts-secret-signing = 簽章密鑰
admin-accounts-webhook-secret-saved = 已儲存：{ $name } 的 Webhook 現在以此簽章密鑰驗證。
admin-accounts-not-found = 沒有與 { $name } 的連線
admin-accounts-kind-unknown = 沒有「{ $kind }」這種服務商類型。
admin-accounts-retention-invalid = 「{ $text }」不是時間長度：請寫成 24h、7d 或 45days。
admin-accounts-saved = 在 { $name } 的操作現在會送往此租戶自己的帳戶。
admin-accounts-removed = 已移除：在 { $name } 的操作現在改用伺服器的連線（若有）。

## Webhook

admin-webhooks-heading = Webhook
admin-webhooks-intro = 其他系統（聊天頻道、商店後端）可即時得知變更：每個事件都經過簽章（Standard Webhooks），至少送達一次，同一操作的事件依序送出；端點未回應 2xx 時，會在數小時內以逐漸拉長的間隔重試。
admin-webhooks-need-key = 端點需要簽章密鑰，伺服器會以其金鑰加密封存：請設定 { $variable } 後啟動伺服器（例如以 { $command } 產生），即可新增端點。
admin-webhooks-empty = 沒有端點：操作變更時不會送出任何通知。請在下方新增。
admin-webhook-deliveries-caption = 最近送往 { $url } 的事件
admin-webhook-added-by = { $name } 新增於 { $time }
admin-webhook-every-event = 所有事件
admin-webhook-remove = 移除…
admin-webhook-remove-consequence = 將移除端點 { $url }，連同尚未送達的事件：它將不再收到任何事件。
admin-webhook-deliveries-empty = 尚未送出任何事件：操作變更時就會送出。
admin-delivery-event = 事件
admin-delivery-about = 對象
admin-delivery-status = 狀態
admin-delivery-attempts = 嘗試次數
admin-delivery-last-answer = 最後回應
admin-delivery-created = 建立時間
admin-delivery-actions = 動作
admin-delivery-pending = 等待送出
admin-delivery-delivered = 已送達
admin-delivery-failed = 已放棄
admin-delivery-next = { $status }，下次 { $time }
admin-webhook-resend = 重新送出
admin-webhook-url = URL
admin-webhook-events = 事件
admin-webhook-add = 新增端點
admin-webhook-remove-unconfirmed = 未移除任何項目：請確認移除（這會丟棄尚未送達該端點的事件）。
admin-delivery-answered = 回應 { $status }
admin-webhook-added = 已新增。其簽章密鑰僅顯示這一次（請用它驗證 webhook-signature 標頭）：{ $secret }
admin-webhook-removed = 已移除：不會再送出任何事件給該端點。
admin-webhook-not-found = 沒有 Webhook 端點 { $id }
admin-delivery-not-found = 沒有 Webhook 送出紀錄 { $id }
admin-delivery-resent = 幾秒內會從第一次嘗試開始重新送出。
admin-delivery-still-sending = 仍在送出中：請等待下一次嘗試，或等到它被放棄。

## 一次性表單（各頁的變更表單）

admin-request-key-invalid = 此表單沒有有效的請求鍵；請重新載入頁面。
admin-request-in-progress = 此請求正在處理中；完成後會顯示結果。
admin-request-other = 此表單已用於另一個請求；請重新載入頁面。

## 顧客 Email 範本

templates-heading = 顧客 Email
templates-intro = 代理程式可以就訂單寫給顧客的內容（{ $tool } 工具），透過此租戶的電子郵件帳戶（類型 email 或 smtp）寄出。每封郵件在寄出前都會連同內文一併記錄，且只寄出一次；經由 SMTP 寄送時，由於 SMTP 既無法辨識重複、也無法查詢，回應遺失的郵件會留待人員處理。
templates-name = 名稱
templates-subject = 主旨
templates-subject-example = 您訂單 {"{"}order{"}"} 的退款
templates-body = 內文（純文字）
templates-placeholders = 可用的佔位符：{ $placeholders }。
templates-save = 儲存範本
templates-empty = 尚無範本：請在下方新增，代理程式即可寄給訂單的顧客。
templates-col-text = 主旨與內文
templates-col-set = 最後設定
templates-col-actions = 動作
templates-remove = 移除
templates-saved = 已儲存：代理程式現在可以寄送「{ $name }」給顧客。
templates-removed = 已移除範本「{ $name }」。
templates-not-found = 沒有範本 { $name }
