# 操作的白話說明（src/domain/wording.rs）：操作是什麼、對客服來說目前狀況如何、
# 可以告訴顧客的一句話，以及有風險的動作會造成什麼結果。
# 名稱（服務商、品項）前後不加空格，因為它們可能是中文也可能是英文；金額前後加空格。

## 客服所認識的服務商名稱（Stripe 與 PayPal 保留原名）。
wording-provider-services = 售後服務系統
wording-provider-email = 電子郵件服務

## 服務商記住冪等鍵的時間長度。
wording-retention-minutes = { $n } 分鐘
wording-retention-hours = { $n } 小時
wording-retention-days = { $n } 天

## 服務商如何確認遺失或處理中的回應。$provider 是服務商名稱，$window 是上面的保留時間。
wording-settling-key-and-lookup = 遺失的回應會以送出時的操作 ID 向 { $provider } 查詢；{ $provider } 會保留冪等鍵 { $window }，超過之後，沒有人員確認就不會再重送。
wording-settling-key-only = 無法向 { $provider } 查詢這項操作：遺失的回應會以相同的冪等鍵重送來確認；{ $provider } 會保留冪等鍵 { $window }，超過之後，沒有人員確認就不會再重送。
wording-settling-lookup-only = { $provider } 不接受冪等鍵，因此系統絕不會自行重複送出：遺失的回應會以操作 ID 查詢，查無結果時交由人員處理。
wording-settling-at-most-once = { $provider } 不接受冪等鍵，也無法查詢它做了什麼：最多只會送出一次，遺失的回應會連同已知的情況直接交由人員處理。
# 以下句子接在上一句之後。
wording-settling-5xx-same-key = 發生伺服器錯誤（500 系列狀態碼）後，{ $provider } 對相同冪等鍵的重送只會再回覆同一個錯誤，因此這種錯誤絕不靠重送確認，只能依 { $provider } 對這項操作的說法或由人員確認。
wording-settling-5xx-retry = 發生伺服器錯誤（500 系列狀態碼）後，{ $provider } 會重新處理以相同冪等鍵重送的請求，因此這種錯誤與遺失的回應一樣處理：在冪等鍵保留期間內以相同的冪等鍵重送。
wording-settling-5xx-unknown = 不確定 { $provider } 在伺服器錯誤（500 系列狀態碼）後是否會重新處理以相同冪等鍵重送的請求，因此這種錯誤絕不靠重送確認，只能依 { $provider } 對這項操作的說法或由人員確認。
wording-settling-adyen = Adyen 對每筆退款都先回覆「received」：是否完成，由它的 REFUND Webhook 告知。
wording-settling-paypal = 狀態為 PENDING 的退款會依其 ID 重新讀取，直到 PayPal 完成或判定失敗。
wording-settling-stripe = 處理中的退款會依其 ID 重新讀取，或由 Stripe 的 Webhook 確認，直到成功或失敗。
wording-settling-no-payment-read = 由於 { $provider } 無法讀取付款資料，可退款的餘額是依商店的訂單與本系統記錄的退款計算。

## 對客服而言操作是什麼。$amount 是金額，$item 是訂單品項名稱，$kind 是主控台沒有對應說法的類型名稱。
wording-noun-refund = 退款
wording-noun-refund-amount = { $amount } 退款
wording-noun-refund-item = { $item }的退款
wording-noun-refund-amount-item = { $item }的 { $amount } 退款
wording-noun-aftersale = 售後單
wording-noun-aftersale-item = { $item }的售後單
wording-noun-pickup = 取件
wording-noun-pickup-item = { $item }的取件
wording-noun-email = 寄給顧客的電子郵件
wording-noun-email-item = 寄給顧客、關於{ $item }的電子郵件
wording-noun-cancel-aftersale = 取消售後單的操作
wording-noun-cancel-aftersale-item = 取消{ $item }售後單的操作
wording-noun-other = 「{ $kind }」操作
wording-noun-other-amount = 「{ $kind }」操作（{ $amount }）
wording-noun-other-item = { $item }的「{ $kind }」操作
wording-noun-other-amount-item = { $item }的「{ $kind }」操作（{ $amount }）

## 客服不可再做的動作，用於「請勿再次{ $verb }」。
wording-verb-refund = 退款
wording-verb-aftersale = 開立售後單
wording-verb-pickup = 安排取件
wording-verb-email = 寄送
wording-verb-cancel-aftersale = 取消
wording-verb-other = 送出

## 對顧客說明時的操作名稱。
wording-customer-refund = 您的退款
wording-customer-refund-amount = 您的 { $amount } 退款
wording-customer-aftersale = 您的售後申請
wording-customer-pickup = 您商品的取件
wording-customer-email = 寄給您的電子郵件
wording-customer-cancel-aftersale = 您取消售後申請的要求
wording-customer-other = 您的申請（{ $kind }）

## 各狀態的說明（status）與要告訴顧客的話（customer）。
wording-planned-status = { $noun }已記錄，尚未送到 { $provider }；目前還沒有任何動作。
wording-planned-customer = 我們正在處理{ $customer_noun }，稍後會再向您確認。
wording-pending-approval-status = { $noun }正在等待主管核准；尚未送到 { $provider }。
wording-pending-approval-customer = { $customer_noun }正由我們的團隊審核，核准後會立即通知您。
wording-approved-status = { $noun }已核准，正在等待送到 { $provider }。
wording-approved-customer = { $customer_noun }已核准，正在處理中。
wording-denied-status = { $noun }已被主管駁回；沒有送到 { $provider }。
wording-denied-customer = 很抱歉，{ $customer_noun }未獲核准，我們的同事會向您說明原因。
wording-submitted-status = { $noun }已送到 { $provider }，對方尚未回覆。請勿再次{ $verb }。
# 結果未定時（已送出、結果未明、待確認）告訴顧客的話。
wording-checking-customer = 請不要重複申請：{ $customer_noun }正在與 { $provider } 確認中，一有結果我們會立即通知您。
wording-accepted-refund-status = { $provider } 已受理{ $noun }，但銀行尚未確認。請勿再次{ $verb }。
wording-accepted-status = { $provider } 已受理{ $noun }，但尚未確認已完成。請勿再次{ $verb }。
wording-accepted-refund-customer = { $customer_noun }正由銀行處理中，完成後我們會立即通知您，請不要重複申請。
wording-accepted-customer = { $customer_noun }正在處理中，完成後我們會立即通知您，請不要重複申請。
wording-succeeded-status = { $provider } 已確認{ $noun }完成。這項操作已經完成，請勿再次{ $verb }。
wording-succeeded-refund-customer = { $customer_noun }已完成，款項可能需要幾天才會出現在您的銀行帳戶。
wording-succeeded-email-customer = { $customer_noun }已寄出。
wording-succeeded-customer = { $customer_noun }已完成。
wording-failed-status = { $provider } 已受理{ $noun }，之後卻在對方處失敗：{ $reason }。沒有任何變動；如有需要，可以手動重新發起。
wording-failed-customer = 很抱歉，{ $customer_noun }未能完成：{ $reason }。我們會重新安排，並再通知您。
wording-rejected-status = { $provider } 拒絕了{ $noun }；未做任何處理。
wording-rejected-customer = 很抱歉，{ $customer_noun }未能完成；我們正在了解原因，稍後會回覆您。
wording-unknown-status = { $noun }已送到 { $provider }，但對方未在時限內回覆；我們正在確認是否已執行。請勿再次{ $verb }。
wording-needs-review-status = { $noun }已送到 { $provider }，但查詢後仍無法確定是否已執行，目前待確認，由對帳人員審查中。請勿再次{ $verb }。
# 服務商確認完成後，又回報失敗（Adyen 的 REFUND_FAILED）；待專人處理。$reason 為 wording-reason-* 之一。
wording-failed-after-success-status = { $provider } 曾確認{ $noun }完成，之後卻回報失敗：{ $reason }。目前由專人確認實際結果並處理。請勿再次{ $verb }。
wording-failed-after-success-refund-customer = { $customer_noun }在完成後被支付網路退回；我們的同仁正在確認，會再與您聯繫。
wording-failed-after-success-customer = { $customer_noun }在完成後未能生效；我們的同仁正在確認，會再與您聯繫。
wording-cancelled-status = { $noun }已取消；不會再送到 { $provider }。
wording-cancelled-customer = { $customer_noun }已取消。
# 送到不接受冪等鍵、也無法查詢的下游，且回應遺失。
wording-unanswerable-status = { $noun }已交給 { $provider }，但對方無法辨識重複的請求，也無法查詢它做了什麼：沒有人能確定是否已送達，系統也不會自行重送。將由人員確認；請勿再次{ $verb }。
wording-unanswerable-customer = 如果您還沒收到{ $customer_noun }，請告訴我們：同事正在確認，稍後會回覆您。

## 服務商受理後又失敗的原因（Stripe 的 failure_reason）。
wording-reason-expired-card = 原本要退回的卡片已過期或已停用
wording-reason-lost-card = 原本要退回的卡片已掛失或遭竊
wording-reason-declined = 銀行拒絕了這筆交易
wording-reason-insufficient-funds = 商店在服務商的餘額不足以支付
wording-reason-disputed = 這筆付款在退款處理期間被提出爭議
wording-reason-merchant-request = 已應商店要求取消
wording-reason-canceled = 已在服務商端取消
wording-reason-unknown = 服務商沒有提供原因
# $reason 是服務商自己的代碼。
wording-reason-other = 服務商提供的原因為「{ $reason }」

## 有風險的動作在執行前的確認說明。$validity 是服務商還會記住冪等鍵多久。
wording-consequence-resend = { $noun }會以相同的冪等鍵（{ $validity }）再次送到 { $provider }。如果第一次已經送達，{ $provider } 會回覆當時的結果，不會重複執行；但冪等鍵過期後，重送可能會再執行一次。
wording-consequence-cancel = { $noun }不會再送出。如果已經送出，取消並不會撤回。
wording-consequence-mark-not-happened = { $noun }會依您的說明與證據記錄為未完成，且不會送出任何內容。如果 { $provider } 其實已經執行，帳本紀錄將與顧客帳戶的實際情況不符。
wording-compensation-cancel-ticket = 將在 { $provider } 取消{ $noun }。這會記錄為一筆新的操作，並立即送出。
wording-compensation-refund = 將向 { $provider } 送出{ $noun }：顧客會拿回這筆款項。這會記錄為一筆新的操作，並立即送出。
wording-compensation-reschedule = 將在 { $provider } 依您指定的日期重新安排{ $noun }。這會記錄為一筆新的操作，並立即送出。
wording-retry = { $noun }會另外建立一筆新的操作，以它自己的操作 ID 與冪等鍵送到 { $provider }，並與這筆操作連結，和其他操作一樣經過核准規則檢查。請先弄清楚第一次失敗的原因，再重新發起。

## 可以記錄的補償（Compensation::label_in）。
wording-compensation-label-cancel-ticket = 取消售後單
wording-compensation-label-refund = 為此品項退款
wording-compensation-label-reschedule = 重新安排取件

## 嘗試失敗類別的意義（FailureClass::explanation_in）。
wording-failure-not-sent = 請求從未送達服務商；可以安全地再次送出。
wording-failure-invalid-params = 服務商拒絕了參數；未做任何處理。
wording-failure-forbidden = 服務商拒絕授權；未做任何處理。
wording-failure-business-rejection = 服務商拒絕了這項請求；未做任何處理。
wording-failure-failed-at-provider = 服務商受理後，在對方處失敗；沒有任何變動。
wording-failure-transient-unavailable = 服務商忙碌中，沒有處理這項請求；稍後可用相同的冪等鍵重試。
wording-failure-timeout = 請求已送出，但沒有收到回覆：可能已經執行。請勿再次送出，系統正在確認。
wording-failure-server-error = 服務商收到請求後回覆了伺服器錯誤：可能已經執行。只有查詢才能確定結果。

## 一次送出的結果（嘗試的 outcome）。
wording-outcome-succeeded = 成功
wording-outcome-open = 進行中：尚未收到回覆
wording-outcome-no-report = 未回報結果：可能已經執行
wording-outcome-timeout = 未在時限內回覆：可能已經執行
wording-outcome-server-error = 服務商收到後發生錯誤：可能已經執行
wording-outcome-not-sent = 未送達服務商
wording-outcome-invalid-params = 遭服務商拒絕：參數無效
wording-outcome-forbidden = 遭服務商拒絕：沒有權限
wording-outcome-business-rejection = 服務商拒絕
wording-outcome-accepted = 已受理：服務商已收到，結果待定
wording-outcome-failed-at-provider = 已受理，之後在服務商處失敗：沒有任何變動
wording-outcome-transient-unavailable = 服務商忙碌中，未處理這次請求
wording-settling-lookup-by-list = { $provider } 不接受冪等鍵，所以任何請求都不會送兩次：送出前先列出這筆付款的退款，回應遺失時再列一次，找出金額相同且是新出現的那一筆退款；超過閘道的延遲仍找不到，就連同兩次列表交給人員判斷。
wording-settling-ecpay = 綠界先受理退款，於每晚關帳（台灣時間 20:15）時完成；20:15 至 20:30 之間不送出退款。
wording-held-status = { $noun }已記錄但尚未送出：{ $provider } 此刻無法受理（每晚關帳時段、呼叫次數限制，或無法讀取其紀錄）。沒有任何請求送出；{ $provider } 可以受理時會自動送出。請勿再次{ $verb }。
wording-held-customer = { $customer_noun }已記錄，稍後就會送出，完成後我們會向您確認。
