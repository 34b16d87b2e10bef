# 總覽：各狀態的數量、等待人員處理的項目，以及兩張圖表。

overview-empty-title = 尚無操作
overview-empty-text = 代理程式與工具在送出每項操作前，會先透過帳本 API 記錄（{ $api }）。執行 { $command } 即可用示範資料瀏覽主控台。
overview-empty-api = API 說明
overview-cards-label = 各狀態的操作
overview-all = 全部
overview-hourly-title = 每小時操作數（過去 24 小時）
overview-settle-title = 從結果未明到確定的時間（過去 7 天）
overview-settle-label = 已確定的操作，依所花時間
overview-settle-empty = 過去 7 天沒有操作從結果未明轉為確定。
overview-unknown-title = 結果未明的操作，依時長（{ $count }）
overview-unknown-label = 結果未明的操作，依時長
overview-unknown-empty = 沒有結果未明的操作：每項已送出的操作都有確定的結果。
overview-sample-note = 僅統計結果未明最久的 { $count } 筆。
overview-waiting-title = 等待人員處理
overview-pending-approval = { $count } 筆待核准
overview-needs-review = { $count } 筆待確認
overview-needs-review-empty = 沒有待確認的操作。
overview-attention-title = 部分成功或待確認的訂單
overview-attention-empty = 所有訂單皆已完成、已補償，或已失敗且無殘留。
# 接在簡短清單中操作金額之後；$time 是最後變更的時間（「3 分鐘前」）。
overview-changed = 最後變更：{ $time }
overview-order = 訂單
overview-order-status = 狀態
overview-order-operations = 操作
overview-order-net-refunded = 淨退款
overview-order-last-change = 最後變更

# 每小時操作數圖表。$hour 的樣式如「14:00 UTC」。
overview-hour-title = { $hour }：已完成 { $succeeded }、未執行 { $not_done }、未確定 { $uncertain }、尚未送出 { $open }
overview-hourly-label = 每小時建立的操作，依結果區分；最多的一小時有 { $most } 筆
overview-legend-succeeded = 已完成
overview-legend-not-done = 未執行
overview-legend-uncertain = 未確定
overview-legend-not-sent = 尚未送出
overview-legend-utc = （時間為 UTC）

# 另兩張圖表的長條標籤（請保持簡短：顯示在長條旁）。
overview-bucket-under-1-min = 1 分鐘內
overview-bucket-under-5-min = 5 分鐘內
overview-bucket-1-5-min = 1–5 分鐘
overview-bucket-5-30-min = 5–30 分鐘
overview-bucket-30-min-2-h = 30 分鐘–2 小時
overview-bucket-over-2-h = 超過 2 小時
overview-bucket-2-24-h = 2–24 小時
overview-bucket-over-a-day = 超過 1 天
