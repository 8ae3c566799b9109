/** A small corpus the retrieval tests ship: titles and contents, and queries with the title that must rank first. */

export const corpus: ReadonlyArray<[string, string]> = [
  ["Refund policy", "Customers can request a refund within 30 days of purchase. Refunds go back to the original payment method."],
  ["Password reset", "To reset your password, open the login page, choose forgot password and follow the emailed link."],
  ["Shipping times", "Standard shipping takes five business days; express delivery arrives in two days."],
  ["Office locations", "Our offices are in Berlin, Lisbon and Toronto; the headquarters is in Berlin."],
  ["Vacation policy", "Employees receive 28 days of paid vacation per year, plus public holidays."],
  ["Expense claims", "Submit expense claims with receipts within 60 days; meals are reimbursed up to 40 euros."],
  ["Security incidents", "Report a security incident or phishing email to the security team immediately."],
  ["Parental leave", "Parents are entitled to 16 weeks of paid parental leave after birth or adoption."],
  ["API rate limits", "The public API allows 600 requests per minute per API key; exceeding it returns 429."],
  ["Invoice download", "Invoices can be downloaded as PDF from the billing section of the account settings."],
  ["Data retention", "Customer data is retained for seven years and deleted after account closure on request."],
  ["Onboarding checklist", "New hires get a laptop, a badge and an onboarding buddy during their first week."]
]

export const queries: ReadonlyArray<[string, string]> = [
  ["how do I get a refund for my purchase", "Refund policy"],
  ["I forgot my password", "Password reset"],
  ["how long does shipping take", "Shipping times"],
  ["where is the headquarters", "Office locations"],
  ["how many vacation days do I get", "Vacation policy"],
  ["reimbursement for meals and receipts", "Expense claims"],
  ["I received a phishing email", "Security incidents"],
  ["leave after adoption of a child", "Parental leave"],
  ["too many requests 429 rate limit", "API rate limits"],
  ["download invoice pdf", "Invoice download"],
  ["how long is customer data kept", "Data retention"],
  ["what do new hires receive in their first week", "Onboarding checklist"]
]
