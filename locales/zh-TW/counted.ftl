# 計算所選數量的拒絕說明（含複數形式）：只由伺服器寫出，瀏覽器不用（瀏覽器的詞句在 core.ftl 與 operations.ftl，其中沒有選擇式）。

operations-too-many-values = 請減少選擇的值：{ $states } 個狀態 × { $kinds } 個類型 × { $providers } 個服務商，共需合併 { $branches } 份清單，但一次最多只能讀取 { $most } 份。
