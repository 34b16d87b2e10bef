// Drives ECPay's official AIO client (ecpay_aio_nodejs) at a stand-in: reads from standard input
// {"base_url", "merchant_id", "hash_key", "hash_iv", "calls": [{"call": "query_trade" | "do_action",
// "params": {…}}]}, makes each call through the client with its string values, and prints the
// parsed answers as one JSON array on its last line. The client reads its addresses from
// lib/ecpay_payment/ECpayPayment.xml and drops a URL's port when it posts; both are pointed at the
// stand-in here, at run time, without touching the installed package.
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const target = new URL(input.base_url);

const addresses = path.join(path.dirname(require.resolve('ecpay_aio_nodejs')), 'lib', 'ecpay_payment', 'ECpayPayment.xml');
const pointed = fs
  .readFileSync(addresses, 'utf8')
  .split('https://payment-stage.ecpay.com.tw')
  .join(target.origin);
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (path.resolve(String(file)) === addresses) {
    return Buffer.from(pointed);
  }
  return readFileSync.call(fs, file, ...rest);
};

const request = http.request;
http.request = function (options, ...rest) {
  if (options && options.hostname === target.hostname && !options.port) {
    options = { ...options, port: target.port };
  }
  return request.call(http, options, ...rest);
};

const ECPayPayment = require('ecpay_aio_nodejs');
const client = new ECPayPayment({
  OperationMode: 'Test',
  MercProfile: { MerchantID: input.merchant_id, HashKey: input.hash_key, HashIV: input.hash_iv },
  IgnorePayment: [],
  IsProjectContractor: false,
});

async function call({ call, params }) {
  switch (call) {
    case 'query_trade':
      return JSON.parse(await client.query_client.query_credit_single({ ...params }));
    case 'do_action':
      return Object.fromEntries(new URLSearchParams(await client.exec_grant_refund.credit_do_act({ ...params })));
    default:
      throw new Error(`no such call: ${call}`);
  }
}

(async () => {
  const answers = [];
  for (const each of input.calls) {
    answers.push(await call(each));
  }
  process.stdout.write('\n' + JSON.stringify(answers) + '\n');
})().catch((error) => {
  process.stdout.write('\n' + JSON.stringify({ error: String(error) }) + '\n');
  process.exit(1);
});
