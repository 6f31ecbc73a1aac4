// Offline fallback: euro foreign exchange reference rates (1 EUR = N units), approximately as
// the European Central Bank published them for the date below — rounded values entered by
// hand, good for a sample that must answer with no network, not for real money. Used only when
// the live source cannot be reached or answers garbage, and every answer built on it says so,
// with this date. Replace it with fetched figures by running, on a machine with network access,
// `pnpm --filter currency-agent run snapshot`.
export const RATES_SNAPSHOT = {
  base: 'EUR',
  date: '2025-04-01',
  rates: {
    AUD: 1.7238, BGN: 1.9558, BRL: 6.1488, CAD: 1.5518, CHF: 0.9531, CNY: 7.8437, CZK: 25.112, DKK: 7.4622,
    EUR: 1, GBP: 0.8355, HKD: 8.3926, HUF: 402.88, IDR: 17887.0, ILS: 4.0088, INR: 92.29, ISK: 142.7,
    JPY: 161.48, KRW: 1587.06, MXN: 22.05, MYR: 4.7866, NOK: 11.3705, NZD: 1.9013, PHP: 61.795, PLN: 4.1845,
    RON: 4.9772, SEK: 10.8015, SGD: 1.4494, THB: 36.7, TRY: 41.04, USD: 1.0785, ZAR: 19.887,
  } as Record<string, number>,
};
