import type { Texts } from '../texts.js'

/** Español. */
export const es: Texts = {
  title: 'Chatea con nosotros',
  open: 'Abrir chat',
  hide: 'Ocultar chat',
  close: 'Cerrar chat',
  message: 'Mensaje',
  send: 'Enviar',
  you: 'Tú',
  empty: 'Pregúntanos lo que quieras. Solemos responder en pocos minutos.',
  typing: (name) => `${name} está escribiendo…`,
  sending: 'Enviando…',
  read: 'Leído',
  closed: 'Esta conversación está cerrada.',
  rate: '¿Qué tal lo hicimos?',
  note: '¿Algo que añadir? (opcional)',
  sendRating: 'Enviar valoración',
  thanks: 'Gracias por tu valoración.',
  newConversation: 'Empezar una conversación nueva',
  stars: (n) => `Valorar esta conversación con ${n} de 5`,
  offline: 'Sin conexión: tus mensajes se enviarán cuando vuelva la conexión.',
  attach: 'Adjuntar un archivo',
  uploading: (percent) => `Subiendo ${percent} %`,
  tooLarge: 'No enviado: el archivo es demasiado grande.',
  typeRefused: 'No enviado: no se aceptan archivos de este tipo.',
  notSent: 'No enviado.',
}
