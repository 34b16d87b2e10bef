# 操作清單：篩選條件、表格、匯出，以及輸入錯誤時的說明。

operations-title = 操作
operations-live-on = ● 即時：變更發生時立即顯示
operations-live-off = 顯示載入時的清單
operations-filters = 篩選
operations-filter-label = 篩選操作
operations-state = 狀態
operations-kind = 類型
operations-provider = 服務商
operations-order = 訂單
operations-from = 起（UTC）
operations-to = 迄（UTC）
operations-search = 操作 ID 或外部 ID
operations-apply = 套用
operations-clear = 清除
operations-bulk = 批次查詢這些操作…
operations-export-csv = 匯出 CSV
operations-export-jsonl = 匯出 JSON Lines
operations-empty-filtered = 沒有符合這些篩選條件的操作。請放寬條件，或清除篩選以查看所有操作。
operations-empty = 尚無任何操作。代理程式會在送出操作前，先透過帳本 API 記錄。
operations-op-id = 操作 ID
operations-amount = 金額
operations-attempts = 嘗試
operations-external-ids = 外部 ID
operations-created = 建立時間
operations-held = 處理人
operations-held-by = 處理人
operations-held-anyone = 不限
operations-held-mine = 我
operations-held-nobody = 無人處理
operations-held-none = —

# 以文字說明篩選條件，例如批次動作重述時：「狀態 unknown、訂單 order:1077」。
operations-describe-state = 狀態 { $value }
operations-describe-kind = 類型 { $value }
operations-describe-provider = 服務商 { $value }
operations-describe-order = 訂單 { $value }
operations-describe-search = 操作 ID 或外部 ID { $value }
operations-describe-from = 建立時間自 { $value } 起
operations-describe-to = 建立時間早於 { $value }
operations-describe-held-mine = 由我處理
operations-describe-held-nobody = 無人處理
operations-describe-held-by = 由 { $value } 處理
operations-describe-separator = 、
operations-describe-all = 所有操作

# $field 是表單欄位名稱（from、to）。
operations-not-a-time = { $field } 欄位的「{ $text }」不是時間，請寫成 2026-11-30 或 2026-11-30T14:05（UTC）。
operations-damaged-link = 此分頁連結已損壞，請回到第一頁。
operations-no-such-state = 沒有名為「{ $state }」的狀態。
