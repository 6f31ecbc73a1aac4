import { parseRequest, understandConversation } from '../src/parse.js';
import { CURRENCIES, CURRENCY_CODES } from '../src/currencies.js';
import { RATES_SNAPSHOT } from '../src/rates-snapshot.js';

const today = new Date('2024-06-10T12:00:00Z');

describe('understanding a request without an LLM', () => {
  test.each([
    ['convert 100 USD to EUR', { amount: 100, from: 'USD', to: 'EUR', kind: 'convert' }],
    ['how much is 1 USD in INR?', { amount: 1, from: 'USD', to: 'INR' }],
    ['What is the exchange rate between USD and GBP?', { from: 'USD', to: 'GBP', kind: 'rate' }],
    ['EUR→JPY rate on 2024-01-15', { from: 'EUR', to: 'JPY', kind: 'rate', date: '2024-01-15' }],
    ['How much is the exchange rate for 1 USD to INR?', { amount: 1, from: 'USD', to: 'INR', kind: 'rate' }],
    ['convert 1,250.50 euro into yen', { amount: 1250.5, from: 'EUR', to: 'JPY' }],
    ['1.5k dollars to rupees', { amount: 1500, from: 'USD', to: 'INR' }],
    ['€50 in pounds', { amount: 50, from: 'EUR', to: 'GBP' }],
    ['$20 to £', { amount: 20, from: 'USD', to: 'GBP' }],
    ['100€ to $', { amount: 100, from: 'EUR', to: 'USD' }],
    ['how many yen is 100 dollars?', { amount: 100, from: 'USD', to: 'JPY' }],
    ['CONVERT 100 usd TO eur!!!', { amount: 100, from: 'USD', to: 'EUR' }],
    ['100 usd -> cad', { amount: 100, from: 'USD', to: 'CAD' }],
    ['what was the USD to EUR rate yesterday?', { from: 'USD', to: 'EUR', date: '2024-06-09', kind: 'rate' }],
    ['usd/eur rate today', { from: 'USD', to: 'EUR', date: '2024-06-10' }],
    ['How much is 250 Swiss francs in Hong Kong dollars?', { amount: 250, from: 'CHF', to: 'HKD' }],
    ['Convert 2 million yen to US dollars on 2023-12-29', { amount: 2_000_000, from: 'JPY', to: 'USD', date: '2023-12-29' }],
    ['from GBP to AUD, 75 please', { amount: 75, from: 'GBP', to: 'AUD' }],
    ['I want to try 5 CHF in TRY', { amount: 5, from: 'CHF', to: 'TRY' }],
    ['exchange 300 Canadian dollars for euros', { amount: 300, from: 'CAD', to: 'EUR' }],
    ['what is 10k rupees in sterling', { amount: 10_000, from: 'INR', to: 'GBP' }],
    ['How much is 100 USD?', { amount: 100, from: 'USD', to: undefined }],
    ['convert dollars to euros', { from: 'USD', to: 'EUR', amount: undefined, kind: 'convert' }],
  ])('%s', (text, expected) => {
    const parsed = parseRequest(text, today);
    for (const [key, value] of Object.entries(expected)) expect([key, parsed[key as keyof typeof parsed]]).toEqual([key, value]);
    expect(parsed.onTopic).toBe(true);
  });

  test('"try" in lower case is a word, not the Turkish lira', () => {
    expect(parseRequest('let me try to convert 5 usd to eur', today)).toMatchObject({ from: 'USD', to: 'EUR', amount: 5 });
  });

  test('a question that is not about currencies is off topic', () => {
    for (const text of ['what is the weather in Paris?', 'tell me a joke', 'book a table for 2 at 7']) {
      expect(parseRequest(text, today).onTopic).toBe(false);
    }
  });

  test('an unknown three-letter code where a currency goes is reported', () => {
    expect(parseRequest('convert 100 XYZ to EUR', today)).toMatchObject({ unknownCodes: ['XYZ'], to: 'EUR', amount: 100 });
  });

  test('an impossible date is not taken as a date', () => {
    expect(parseRequest('USD to EUR on 2024-02-31', today).date).toBeUndefined();
  });

  test('the currency list covers every currency of the rate source', () => {
    expect([...CURRENCY_CODES].sort()).toEqual(Object.keys(RATES_SNAPSHOT.rates).sort());
    for (const currency of CURRENCIES) expect(parseRequest(`convert 1 ${currency.code} to EUR`, today).from).toBe(currency.code);
  });
});

describe('understanding a conversation', () => {
  test('a follow-up fills what was missing: "How much is 100 USD?" then "in GBP"', () => {
    expect(understandConversation([{ text: 'How much is 100 USD?' }, { text: 'in GBP', awaiting: 'to' }], today)).toMatchObject({
      amount: 100,
      from: 'USD',
      to: 'GBP',
    });
  });

  test('a lone currency answers the slot that was asked for', () => {
    expect(understandConversation([{ text: 'convert 100 to EUR' }, { text: 'GBP', awaiting: 'from' }], today)).toMatchObject({
      from: 'GBP',
      to: 'EUR',
      amount: 100,
    });
    expect(understandConversation([{ text: 'How much is 100 USD?' }, { text: 'yen', awaiting: 'to' }], today)).toMatchObject({
      from: 'USD',
      to: 'JPY',
    });
  });

  test('a lone amount answers "how many?"', () => {
    expect(understandConversation([{ text: 'convert dollars to euros' }, { text: '250', awaiting: 'amount' }], today)).toMatchObject({
      amount: 250,
      from: 'USD',
      to: 'EUR',
    });
  });

  test('a new complete question replaces the old one', () => {
    expect(understandConversation([{ text: 'convert 100 USD to EUR' }, { text: 'and 5 CAD to CHF?' }], today)).toMatchObject({
      amount: 5,
      from: 'CAD',
      to: 'CHF',
    });
  });
});
