# 訂單：訂單清單與每筆訂單的頁面（各品項、每個操作的說明、「詳細資料」中的 ID，以及可進行的補償）。

orders-attention-heading = 部分成功或待確認
orders-attention-empty = 沒有需要處理的訂單：沒有處理到一半或正在等待確認的訂單。
orders-recent-heading = 最近變更
orders-recent-empty = 尚無訂單：有操作指向某筆訂單時，它就會出現在這裡。

# 單筆訂單頁面的標題；$id 是商店的訂單編號（1043）。
orders-order-heading = 訂單 { $id }
# 操作 ID 清單為空時顯示。
orders-none = 無
# 接在操作最後變更的時間之前：「更新於 3 分鐘前」。
orders-story-changed = 更新於{" "}
# 接在要告訴顧客的句子之前。
orders-tell-customer = 告知顧客：
# 接在補償所對應的操作 ID 之前。
orders-makes-up-for = 補償{" "}

# 整筆訂單的金額標籤。
orders-paid = 已付款
orders-refunded = 已退款
orders-being-confirmed = 確認中
orders-still-refundable = 尚可退款
orders-line-items = 訂單品項
# 單一品項的金額：每個標籤後接金額，以「 · 」分隔。
orders-item-paid = 已付款{" "}
orders-item-refunded = 已退款{" "}
orders-item-being-confirmed = 確認中{" "}
orders-item-still-refundable = 尚可退款{" "}
orders-item-nothing-asked = 此品項尚無任何申請。
# $reason：無法讀取商店資料的原因（伺服器提供的文字）。
orders-shop-problem = 無法顯示訂單品項：{ $reason }。以下是系統記錄的內容。
orders-other-operations = 此訂單的其他操作
orders-operations = 操作

orders-details = 詳細資料：所有操作及其 ID
orders-completed = 已完成
orders-not-done = 未執行
orders-not-yet-confirmed = 尚未確認
orders-effects-in-force = 生效中
orders-net-refunded = 淨退款
orders-nothing = 無
orders-col-state = 狀態
orders-col-op-id = 操作 ID
orders-col-kind = 類型
orders-col-compensates = 補償對象
orders-col-amount = 金額
orders-col-external-ids = 外部 ID
orders-col-changed = 更新時間
orders-col-compensations = 補償

orders-compensate-heading = 補償
orders-compensate-hint = 每筆補償都會記錄為一個新操作，連結到它所補償的操作，然後送出。補償有自己的狀態：只有已完成的補償才會改變最終結果。

# 接在「這裡沒有內容：」之後；$subject 是訂單（order:1043）。
orders-not-found = 沒有訂單 { $subject } 的操作
orders-mixed-currencies = 此訂單的金額幣別不同，無法加總。
# $name：表單送來的補償名稱。
orders-no-such-compensation = 沒有名為「{ $name }」的補償。
