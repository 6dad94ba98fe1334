"""What the bot shows, as plain data: messages and keyboards (`render`, `render_tournament`),
button data (`callback_data`) and charts (`charts`, PNG bytes).

The service builds its replies with it; the Telegram side (`bot.telegram`) sends what it
built. Nothing here imports the service, storage or Telegram itself."""
