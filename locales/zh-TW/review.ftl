# 審查頁面：衝突、核准佇列與對帳。

# 衝突：以不同參數重複使用同一操作 ID 的請求。
conflicts-lede = 以不同參數重複使用同一操作 ID 的請求。這些請求已被拒絕，沒有送出任何內容；已儲存的操作維持不變。
conflicts-empty = 目前沒有被拒絕的衝突請求。呼叫端以不同參數重複使用操作 ID 時，會顯示在這裡。
# 後接收到請求的時間：「3 分鐘前」，頁面可互動前則是完整的 UTC 時間。
conflicts-refused-from = 已拒絕 { $who } 的請求，收到於{" "}
conflicts-field = 欄位
conflicts-stored = 已儲存
conflicts-requested = 請求內容
# 某個欄位只出現在其中一組參數。
conflicts-absent = （無）
conflicts-details = 詳細資料：兩組參數的原始記錄
conflicts-stored-params = 已儲存的參數
conflicts-refused-request = 被拒絕的請求

# 核准佇列。$valid_for：現在給予的核准有效多久（「15 min」）。
approvals-lede = 依核准規則需由主管決定的操作，等候最久的排在最前面。核准僅適用於所顯示的參數，效力為 { $valid_for }，核准後會立即送出。
approvals-empty = 目前沒有待核准的操作。哪些操作需要核准，可在管理頁面設定。
approvals-no-amount = 無金額
# $kind：操作類型（refund）；$provider：送往的服務商。
approvals-kind-at = { $kind }（{ $provider }）
# 後接申請人的名稱。
approvals-requested-by = 申請人：
# 後接開始等候的時間：「3 分鐘前」。
approvals-waiting-since = 開始等候：
# 後接過期的時間：「3 分鐘前」。
approvals-earlier-expired = 先前的核准已過期：
approvals-first-of-order = 這是訂單 { $order } 的第一個操作。
# 「訂單 <訂單連結> 目前的操作：」：連結前的文字，以及連結後的文字。
approvals-order-so-far = 訂單{" "}
approvals-order-so-far-end = {" "}目前的操作：

# 對帳。
reconcile-lede = 結果未明的操作，等候最久的排在最前面。請先向服務商查詢，再做其他處理：只有在服務商仍記得冪等鍵時，重新送出才安全。
reconcile-empty = 沒有需要對帳的操作：每個已送出的操作都有明確的結果。
reconcile-col-state = 狀態
reconcile-col-op-id = 操作 ID
reconcile-col-amount = 金額
reconcile-col-waiting-since = 開始等候
reconcile-col-why = 列入原因
# 這一欄說明服務商還會記得冪等鍵多久。
reconcile-col-key = 冪等鍵
reconcile-col-actions = 處理
reconcile-none-for-role = 您的角色無權處理
reconcile-more-actions = 更多動作
# 沒有更明確的記錄時，操作列在對帳中的原因。
reconcile-why-no-outcome = 已送出，但未回報結果
# 已成功的操作回到對帳台的原因：服務商事後回報失敗。$reason 為 wording-reason-* 之一。
reconcile-why-failed-after-success = 服務商先回報完成，之後又回報失敗：{ $reason }
