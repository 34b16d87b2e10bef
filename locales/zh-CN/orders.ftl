# 订单：订单列表与每个订单的页面（各商品、每个操作的说明、“详情”中的 ID，以及可进行的补偿）。

orders-attention-heading = 部分成功或待确认
orders-attention-empty = 没有需要处理的订单：没有处理到一半或正在等待确认的订单。
orders-recent-heading = 最近变更
orders-recent-empty = 暂无订单：有操作指向某个订单时，它就会出现在这里。

# 单个订单页面的标题；$id 是商店的订单号（1043）。
orders-order-heading = 订单 { $id }
# 操作 ID 列表为空时显示。
orders-none = 无
# 放在操作最后变更的时间之前：“更新于 3 分钟前”。
orders-story-changed = 更新于{" "}
# 放在要告诉客户的话之前。
orders-tell-customer = 告知客户：
# 放在补偿所对应的操作 ID 之前。
orders-makes-up-for = 补偿{" "}

# 整个订单的金额标签。
orders-paid = 已付款
orders-refunded = 已退款
orders-being-confirmed = 确认中
orders-still-refundable = 仍可退款
orders-line-items = 商品明细
# 单个商品的金额：每个标签后接金额，以“ · ”分隔。
orders-item-paid = 已付款{" "}
orders-item-refunded = 已退款{" "}
orders-item-being-confirmed = 确认中{" "}
orders-item-still-refundable = 仍可退款{" "}
orders-item-nothing-asked = 该商品暂无任何申请。
# $reason：无法读取商店数据的原因（服务器给出的文字）。
orders-shop-problem = 无法显示商品明细：{ $reason }。以下是系统记录的内容。
orders-other-operations = 该订单的其他操作
orders-operations = 操作

orders-details = 详情：所有操作及其 ID
orders-completed = 已完成
orders-not-done = 未执行
orders-not-yet-confirmed = 尚未确认
orders-effects-in-force = 生效中
orders-net-refunded = 净退款
orders-nothing = 无
orders-col-state = 状态
orders-col-op-id = 操作 ID
orders-col-kind = 类型
orders-col-compensates = 补偿对象
orders-col-amount = 金额
orders-col-external-ids = 外部 ID
orders-col-changed = 更新时间
orders-col-compensations = 补偿

orders-compensate-heading = 补偿
orders-compensate-hint = 每笔补偿都会记录为一个新操作，关联到它所补偿的操作，然后发送。补偿有自己的状态：只有已完成的补偿才会改变最终结果。

# 放在“这里没有内容：”之后；$subject 是订单（order:1043）。
orders-not-found = 没有订单 { $subject } 的操作
orders-mixed-currencies = 该订单的金额币种不同，无法相加。
# $name：表单发来的补偿名称。
orders-no-such-compensation = 没有名为“{ $name }”的补偿。
