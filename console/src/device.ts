import { texts } from './texts'

// The visitor's device as an agent reads it ("Chrome 131 on Android"), from the user agent their
// app's backend passed in the ticket request; the device ID is an opaque ID of the app's.

const SYSTEMS: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/CrOS/, 'ChromeOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
]
// In this order: Edge and Opera say "Chrome" too, Chrome says "Safari".
const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari/, 'Safari'],
]

/** "Chrome 131 on Android", "Firefox 133", "Linux"; empty when the user agent names neither. */
export function deviceName(userAgent: string): string {
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
  let browser: string | undefined
  for (const [pattern, name] of BROWSERS) {
    const version = pattern.exec(userAgent)?.[1]
    if (version) {
      browser = `${name} ${version}`
      break
    }
  }
  if (browser && system) return texts.visitor.browserOn(browser, system)
  return browser ?? system ?? ''
}
