import { countdown } from "./countdown.js";
import { square, sumOfSquares } from "./fan-out.js";
import { invoiceTotal } from "./invoice.js";

// What the team's runifold-worker serves (`--workflows workflows.js`).
export default [square, sumOfSquares, countdown, invoiceTotal];
