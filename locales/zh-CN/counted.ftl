# 计算所选数量的拒绝说明（含复数形式）：只由服务器写出，浏览器不用（浏览器的词句在 core.ftl 与 operations.ftl，其中没有选择式）。

operations-too-many-values = 请减少所选的值：{ $states } 个状态 × { $kinds } 个类型 × { $providers } 个服务商，共需合并 { $branches } 份列表，但一次最多只能读取 { $most } 份。
