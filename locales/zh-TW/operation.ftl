# 單一操作的頁面：目前狀況、基本資料、可執行的動作與確認、嘗試、外部 ID、核准、補償與稽核紀錄。

operation-stop-requested = 已要求停止
operation-tell-customer = 告知顧客：
operation-kind = 類型
operation-order = 訂單
operation-provider = 服務商
operation-amount = 金額
operation-requested-by = 申請人
operation-sent-by = 送出者
operation-provider-offers = 服務商提供的能力
operation-settled-by = 結果確認方式
operation-created = 建立時間
operation-idempotency-key = 冪等鍵
operation-key-validity = 冪等鍵在服務商端的效期
# 冪等鍵仍有效的期限；$time 是完整時間，頁面可互動後顯示為相對時間。
operation-key-until = （至 { $time }）
operation-last-failure = 最近一次失敗
operation-conflicting = 衝突的請求
operation-conflicts-refused = 已拒絕 { $count } 筆

# 服務商還會記得冪等鍵多久（operation-key-left），以最大的兩個單位表示。
operation-span-seconds = { $s } 秒
operation-span-minutes = { $min } 分鐘
operation-span-hours = { $h } 小時
operation-span-hours-minutes = { $h } 小時 { $min } 分鐘
operation-span-days = { $d } 天
operation-span-days-hours = { $d } 天 { $h } 小時
operation-key-none = 沒有：服務商不接受冪等鍵，所以絕不會送兩次
operation-key-not-sent = 尚未送出
operation-key-left = 剩餘 { $span }
operation-key-expired = 已過期：服務商已不再認得此冪等鍵

# 由誰送出。$kind 與 $action 是系統名稱（refund、create_refund）；$provider 是連線名稱。
operation-sender-none = 沒有連接器在 { $provider } 執行「{ $kind }」：opledger 從不自行送出。它只記錄代理程式回報的內容，結果如何由人員判斷。
operation-sender-server-money = 由 opledger 自行送出，作為 { $provider } 的 { $action }：核准政策與四眼原則適用於此，也適用於 { $provider } 所記錄的、這筆操作動用的金額。
operation-sender-server = 由 opledger 自行送出，作為 { $provider } 的 { $action }：核准政策與四眼原則適用於此。
operation-sender-agent = 由代理程式自行送出：政策要求的核准尚未取得前，opledger 會暫緩送出，並記錄代理程式回報的內容、確認結果未明的操作（重新送出時，只會以原本綁定的 { $action } 送出，且不超出政策範圍）。未經詢問就送出的代理程式，不在 opledger 的控制範圍內。

# 接在「這裡沒有內容：」之後。
operation-not-found = 租戶 { $tenant } 中沒有操作 { $op_id }
operation-no-such-action = 沒有名為「{ $action }」的動作。
operation-executor-only = 「{ $action }」由執行器處理，無法從主控台執行。
operation-confirm-first = 請先確認：頁面會說明這個動作的結果。

# 將失敗的操作重新建立為新的操作。
operation-retry-heading = 重新建立
operation-retry-confirm-heading = 確認：重新建立
operation-reason = 原因
operation-retry-placeholder = 顧客提供了新的卡片
operation-retry-button = 重新建立…
operation-retry-yes = 是，重新建立

operation-actions-heading = 您可執行的動作
operation-actions-none = 無：在此狀態下，您的角色沒有可執行的動作。
operation-compensate = 補償
operation-compensate-hint = 補償是連結到此操作的新操作，有自己的狀態：在它完成之前，不能當作已經補償。

# 操作的各項動作，即按鈕上的文字。
operation-action-approve = 核准
operation-action-deny = 駁回
operation-action-expire-approval = 讓核准失效
operation-action-send = 送出
operation-action-record-outcome = 記錄結果
operation-action-mark-unknown = 標記為結果未明
operation-action-query = 立即向服務商查詢
operation-action-resend = 以相同冪等鍵重新送出
operation-action-escalate = 轉交確認
operation-action-mark-succeeded = 標記為已完成
operation-action-mark-not-happened = 標記為未發生
operation-action-cancel = 取消

operation-query-hint = 以操作 ID 向服務商查詢此操作；查到即表示已完成。隨時都可安全執行。
# $validity 是冪等鍵還會被認得多久（「剩餘 23 小時 12 分鐘」）。
operation-resend-hint = 以相同的冪等鍵再次送出已儲存的參數；服務商的效期：{ $validity }。
operation-reason-optional = 原因（選填）
operation-reviewer-note = 給確認人員的備註
operation-external-id = 外部 ID
operation-evidence = 證據
operation-evidence-seen = 您在哪裡看到
operation-evidence-nothing = 足以證明未發生的依據
operation-new-date = 新日期
# $action 是動作按鈕上的文字。
operation-confirm-heading = 確認：{ $action }
operation-nothing-to-confirm = 沒有需要確認的動作
operation-nothing-to-confirm-text = 此操作目前無法執行這個動作：它的狀態已改變，或您的角色不允許。下方頁面會列出您可以執行的動作。

operation-params = 標準化參數
operation-fingerprint = 指紋
operation-timeline = 狀態時間軸
operation-recorded = 建立

operation-attempts = 嘗試
operation-attempts-none = 尚未送出。
operation-started = 開始時間
operation-in-flight-until = 傳送中直到
operation-duration = 耗時
operation-milliseconds = { $ms } 毫秒
operation-outcome = 結果
operation-key-sent = 送出的冪等鍵
operation-error = 錯誤

operation-external-ids = 外部 ID
operation-external-none = 服務商尚未確認此操作的任何物件。
operation-approval-heading = 核准與補償
# $granted 與 $expires 是時間。
operation-approved = 由 { $approver } 於 { $granted } 核准，有效至 { $expires }
operation-approved-other-params = 由 { $approver } 於 { $granted } 核准，有效至 { $expires }。此核准是針對其他參數，不涵蓋目前的參數
operation-approval-none = 沒有核准紀錄。
operation-compensates = 補償對象：
operation-retry-of = 重新建立自失敗的操作：
operation-retried-by = 已重新建立為：
operation-compensated-by = 補償操作：

operation-audit = 稽核紀錄
operation-audit-seq = 序號
operation-audit-at = 時間
operation-audit-actor = 執行者
operation-audit-action = 動作
operation-audit-change = 變更
operation-audit-reason = 原因與證據
operation-audit-sealing = 封存中…
operation-audit-actor-role = { $actor }（{ $role }）
operation-audit-details = 詳細資料
operation-archived-badge = 已封存
operation-archived = 已封存：此作業於 { $closed } 結束，歷程自租戶封存中的 { $file } 讀取。已無法再對它做任何動作；同一意圖再次送來時，仍會得到這個結果。
