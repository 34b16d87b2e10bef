# 向服務商批次查詢：預覽、執行進度與結果。

bulk-title = 批次查詢
bulk-heading = 向服務商批次查詢
# $matching 與 $actionable 是數量（粗體顯示）；$n 與 $matching 為同一個數字。
bulk-preview-counts = { $n ->
   *[other] 共 { $matching } 筆操作符合篩選條件：{ $filter }。其中 { $actionable } 筆現在可以查詢（結果未明、待確認，或已送出但沒有回音的操作）。
}
bulk-preview-counts-capped = 共 { $matching } 筆操作符合篩選條件：{ $filter }（只計入前 { $limit } 筆；請縮小篩選範圍以涵蓋其餘操作）。其中 { $actionable } 筆現在可以查詢（結果未明、待確認，或已送出但沒有回音的操作）。
bulk-preview-how = 每一筆都會以操作 ID 向其服務商查詢。找到即視為已完成，並以查詢結果作為證據；找不到則不做任何變更。不會送出任何操作。
bulk-nothing-to-do = 沒有需要查詢的操作。請到{ $list }變更篩選條件。
bulk-operations-list = 操作清單
bulk-confirm = 查詢 { $count } 筆操作
bulk-cancel = 取消
# $who 是人名，$time 是開始時間，$filter 是以文字描述的篩選條件（連結）。
bulk-run-started = 由 { $who } 於 { $time } 開始向服務商查詢，範圍：{ $filter }。
bulk-progress-label = 已查詢的操作
bulk-running = 已完成 { $done } / { $total }…
# $summary 即 bulk-summary。
bulk-done = 已完成：{ $done } / { $total }，完成於 { $time }。{ $summary }
bulk-summary = 已確認 { $confirmed } 筆、找不到 { $not_found } 筆、無法查詢 { $unavailable } 筆、遭拒絕 { $refused } 筆。
bulk-results = 結果
bulk-col-op-id = 操作 ID
bulk-col-result = 結果
bulk-col-what-happened = 處理情形
bulk-outcome-waiting = 等待中
bulk-outcome-confirmed = 已確認
bulk-outcome-not-found = 找不到
bulk-outcome-unavailable = 無法查詢
bulk-outcome-refused = 遭拒絕
bulk-damaged-filter = 篩選條件已損壞，請從操作清單重新開始。
bulk-nothing-started = 此篩選顯示的操作目前都無法查詢，未開始任何查詢。
# 顯示為「這裡沒有內容：…」。
bulk-run-not-found = 批次查詢 { $id } 不存在

# 搜尋頁（頁首搜尋框的文字在 core.ftl）。
search-page-title = 搜尋
search-page-how = 在上方搜尋框輸入訂單編號（1043 或 #1043）、操作 ID（refund-1043）、外部 ID（re_…）或人名的開頭，然後按 Enter。在任何頁面按 / 都能跳到搜尋框。
search-page-nothing = 沒有以「{ $words }」開頭的項目。請以開頭搜尋：訂單編號、操作 ID、外部 ID 或人名。若要依狀態、類型或時間篩選，請使用{ $list }。
search-page-operations-list = 操作清單
search-page-searched = 以「{ $words }」開頭的項目：
search-page-people = 人員
search-page-in-audit = （他在稽核紀錄中做過的動作）
search-page-external-id = 外部 ID
search-page-too-long = 搜尋內容最多 { $longest } 個字元，可以是訂單、操作 ID、外部 ID 或人名。
search-page-archived = 已封存
